import time

import torch
import torch.utils.data


class BatchedGraph:
    """What dgl.batch() hands to the nets: edge lists plus node / edge feature frames."""

    def __init__(self, src, dst, num_nodes):
        self.src = src
        self.dst = dst
        self._num_nodes = num_nodes
        self.ndata = {}
        self.edata = {}

    def number_of_nodes(self):
        return self._num_nodes

    def number_of_edges(self):
        return self.src.numel()


def sbm_pattern_graph(g, n_communities=3, size_range=(12, 18), p=0.5, q=0.15, pattern_size=6,
                      in_dim=3):
    """One PATTERN graph: an SBM with a planted pattern; nodes of the pattern are labelled 1."""
    sizes = torch.randint(size_range[0], size_range[1] + 1, (n_communities,), generator=g)
    comm = torch.repeat_interleave(torch.arange(n_communities), sizes)
    n = int(sizes.sum()) + pattern_size
    comm = torch.cat([comm, torch.full((pattern_size,), n_communities)])
    same = comm[:, None] == comm[None, :]
    prob = torch.where(same, torch.full((n, n), p), torch.full((n, n), q))
    prob[-pattern_size:, -pattern_size:] = 0.9   # the planted pattern is dense
    adj = torch.rand(n, n, generator=g) < prob
    adj = torch.triu(adj, diagonal=1)
    adj = adj | adj.t()
    src, dst = adj.nonzero(as_tuple=True)
    feat = torch.randint(0, in_dim, (n,), generator=g)
    label = (comm == n_communities).long()
    return src, dst, n, feat, label


class SBMsDatasetDGL(torch.utils.data.Dataset):
    def __init__(self, name, split, num_graphs, seed):
        self.name = name
        self.split = split
        g = torch.Generator().manual_seed(seed)
        self.graph_lists = []
        self.graph_labels = []
        for _ in range(num_graphs):
            src, dst, n, feat, label = sbm_pattern_graph(g)
            self.graph_lists.append((src, dst, n, feat))
            self.graph_labels.append(label)

    def __len__(self):
        return len(self.graph_lists)

    def __getitem__(self, idx):
        return self.graph_lists[idx], self.graph_labels[idx]


class SBMsDataset(torch.utils.data.Dataset):

    def __init__(self, name, n_train=64, n_val=8, n_test=8):
        """
            Loading SBM datasets (synthetic, generated in place of the .pkl files)
        """
        start = time.time()
        print("[I] Loading dataset %s..." % (name))
        self.name = name
        self.train = SBMsDatasetDGL(name, 'train', n_train, seed=1)
        self.val = SBMsDatasetDGL(name, 'val', n_val, seed=2)
        self.test = SBMsDatasetDGL(name, 'test', n_test, seed=3)
        print('train, test, val sizes :', len(self.train), len(self.test), len(self.val))
        print("[I] Finished loading.")
        print("[I] Data load time: {:.4f}s".format(time.time() - start))

    # form a mini batch from a given list of samples = [(graph, label) pairs]
    def collate(self, samples):
        # The input samples is a list of pairs (graph, label).
        graphs, labels = map(list, zip(*samples))
        labels = torch.cat(labels).long()
        srcs, dsts, feats = [], [], []
        offset = 0
        for (src, dst, n, feat) in graphs:
            srcs.append(src + offset)
            dsts.append(dst + offset)
            feats.append(feat)
            offset += n
        batched_graph = BatchedGraph(torch.cat(srcs), torch.cat(dsts), offset)
        batched_graph.ndata['feat'] = torch.cat(feats)
        batched_graph.edata['feat'] = torch.ones(batched_graph.number_of_edges(), 1)
        return batched_graph, labels
