# Source: https://github.com/pyg-team/pytorch_geometric/issues/1702
# Shape: a helper folds every mini-graph loss into a running stats dict, but detaches the value first, so only plain numbers carry across batches.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGCN(nn.Module):
    def __init__(self, d_in=6, d_hid=12, n_cls=3):
        super().__init__()
        self.lin1 = nn.Linear(d_in, d_hid)
        self.lin2 = nn.Linear(d_hid, n_cls)

    @staticmethod
    def propagate(adj, x):
        deg = adj.sum(1, keepdim=True).clamp(min=1.0)
        return (adj @ x) / deg

    def forward(self, adj, x):
        h = F.relu(self.lin1(self.propagate(adj, x)))
        return self.lin2(self.propagate(adj, h)), h


def fold(stats, key, value):
    stats[key] = stats.get(key, 0.0) + value.detach()


def link_loss(h, adj):
    logits = h @ h.t()
    return F.binary_cross_entropy_with_logits(logits, adj)


def make_batches(n):
    g = torch.Generator().manual_seed(2)
    out = []
    for _ in range(n):
        a = (torch.rand(10, 10, generator=g) > 0.7).float()
        adj = ((a + a.t()) > 0).float() + torch.eye(10)
        adj = adj.clamp(max=1.0)
        out.append((adj, torch.randn(10, 6, generator=g), torch.randint(0, 3, (10,), generator=g)))
    return out


def run(batches):
    model = TinyGCN()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    stats = {}
    for step, (adj, x, y) in enumerate(batches):
        model.train()
        opt.zero_grad()
        logits, h = model(adj, x)
        ce = F.cross_entropy(logits, y)
        ll = link_loss(h, adj)
        (ce + 0.1 * ll).backward()
        opt.step()
        fold(stats, "ce", ce)
        fold(stats, "link", ll)
    n = max(1, len(batches))
    return {k: float(v) / n for k, v in stats.items()}


if __name__ == "__main__":
    print(run(make_batches(5)))
