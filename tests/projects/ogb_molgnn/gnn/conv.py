"""Message passing layers written with index_add_ (no torch_geometric needed)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GINConv(nn.Module):
    def __init__(self, emb_dim, num_bond_types=3):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(emb_dim, 2 * emb_dim), nn.BatchNorm1d(2 * emb_dim), nn.ReLU(),
                                 nn.Linear(2 * emb_dim, emb_dim))
        self.eps = nn.Parameter(torch.zeros(1))
        self.bond_encoder = nn.Embedding(num_bond_types, emb_dim)

    def forward(self, x, edge_index, edge_attr):
        src, dst = edge_index
        msg = F.relu(x[src] + self.bond_encoder(edge_attr))
        agg = torch.zeros_like(x).index_add_(0, dst, msg)
        return self.mlp((1 + self.eps) * x + agg)


class GNN_node_Virtualnode(nn.Module):
    def __init__(self, num_layer, emb_dim, num_atom_types=10, drop_ratio=0.0):
        super().__init__()
        self.num_layer = num_layer
        self.drop_ratio = drop_ratio
        self.atom_encoder = nn.Embedding(num_atom_types, emb_dim)
        self.virtualnode_embedding = nn.Embedding(1, emb_dim)
        nn.init.constant_(self.virtualnode_embedding.weight, 0)
        self.convs = nn.ModuleList([GINConv(emb_dim) for _ in range(num_layer)])
        self.bns = nn.ModuleList([nn.BatchNorm1d(emb_dim) for _ in range(num_layer)])
        self.vn_mlps = nn.ModuleList([nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.ReLU())
                                      for _ in range(num_layer - 1)])

    def forward(self, x, edge_index, edge_attr, batch, num_graphs):
        vn = self.virtualnode_embedding(torch.zeros(num_graphs, dtype=torch.long))
        h = self.atom_encoder(x)
        for layer in range(self.num_layer):
            h = h + vn[batch]
            h = self.bns[layer](self.convs[layer](h, edge_index, edge_attr))
            if layer < self.num_layer - 1:
                h = F.relu(h)
                pooled = torch.zeros(num_graphs, h.size(1)).index_add_(0, batch, h)
                vn = vn + self.vn_mlps[layer](pooled + vn)
            h = F.dropout(h, self.drop_ratio, training=self.training)
        return h
