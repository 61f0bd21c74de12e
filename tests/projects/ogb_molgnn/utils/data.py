"""Tiny synthetic molecule-like graphs and a collate that builds a PyG-style batch dict."""
import torch


def make_graphs(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    graphs = []
    for _ in range(n):
        k = int(torch.randint(4, 9, (1,), generator=g))
        x = torch.randint(0, 10, (k,), generator=g)
        src = torch.arange(k - 1)
        ei = torch.cat([torch.stack([src, src + 1]), torch.stack([src + 1, src])], 1)
        ea = torch.randint(0, 3, (ei.size(1),), generator=g)
        y = torch.tensor([float((x % 2).sum() > k / 2), float(k > 6)])
        graphs.append((x, ei, ea, y))
    return graphs


def collate(items):
    xs, eis, eas, ys, batch = [], [], [], [], []
    offset = 0
    for i, (x, ei, ea, y) in enumerate(items):
        xs.append(x); eis.append(ei + offset); eas.append(ea); ys.append(y)
        batch.append(torch.full((x.size(0),), i, dtype=torch.long))
        offset += x.size(0)
    return {"x": torch.cat(xs), "edge_index": torch.cat(eis, 1), "edge_attr": torch.cat(eas),
            "batch": torch.cat(batch), "num_graphs": len(items), "y": torch.stack(ys)}


def make_loader(graphs, batch_size=8, steps=None):
    batches = [collate(graphs[i:i + batch_size]) for i in range(0, len(graphs), batch_size)]
    if steps is not None:
        batches = [batches[i % len(batches)] for i in range(steps)]
    return batches
