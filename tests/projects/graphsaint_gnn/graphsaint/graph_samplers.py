import numpy as np
from graphsaint.globals import *


class GraphSampler:
    """
    Base class of the subgraph samplers: par_sample() returns a batch of
    node-induced subgraphs (node ids, dense sub-adjacency, edge ids).
    """
    def __init__(self, adj_train, node_train, size_subgraph, args_preproc):
        self.adj_train = adj_train
        self.node_train = np.unique(node_train).astype(np.int64)
        self.size_subgraph = size_subgraph
        self.name_sampler = 'None'
        self.node_subgraph = None
        self.rng = np.random.RandomState(args_preproc.get('seed', 0))
        self.preproc(**args_preproc)

    def preproc(self, **kwargs):
        pass

    def _induce(self, nodes):
        nodes = np.unique(nodes)
        adj = self.adj_train[np.ix_(nodes, nodes)]
        rows, cols = np.nonzero(adj)
        return nodes, adj, nodes[rows] * self.adj_train.shape[0] + nodes[cols]

    def par_sample(self, stage, **kwargs):
        out_nodes, out_adj, out_edges = [], [], []
        for _ in range(SAMPLES_PER_PROC):
            v, adj, e = self._induce(self.sample_nodes())
            out_nodes.append(v)
            out_adj.append(adj)
            out_edges.append(e)
        return out_nodes, out_adj, out_edges


class rw_sampling(GraphSampler):
    """random walks of length `depth` from `num_root` uniformly chosen roots"""
    def __init__(self, adj_train, node_train, size_subgraph, size_root, size_depth):
        self.size_root = size_root
        self.size_depth = size_depth
        size_subgraph = size_root * size_depth
        super().__init__(adj_train, node_train, size_subgraph, {})

    def sample_nodes(self):
        roots = self.rng.choice(self.node_train, size=self.size_root, replace=True)
        visited = [roots]
        cur = roots
        for _ in range(self.size_depth):
            nxt = cur.copy()
            for i, v in enumerate(cur):
                neigh = np.nonzero(self.adj_train[v])[0]
                if len(neigh):
                    nxt[i] = self.rng.choice(neigh)
            visited.append(nxt)
            cur = nxt
        return np.concatenate(visited)


class node_sampling(GraphSampler):
    """nodes sampled with probability proportional to degree"""
    def __init__(self, adj_train, node_train, size_subgraph):
        super().__init__(adj_train, node_train, size_subgraph, {})

    def preproc(self, **kwargs):
        deg = self.adj_train[self.node_train].sum(1).astype(np.float64) + 1.0
        self.p_dist = deg / deg.sum()

    def sample_nodes(self):
        return self.rng.choice(self.node_train, size=self.size_subgraph, p=self.p_dist)
