import torch
import torch.nn as nn

from .conv import GNN_node_Virtualnode
from utils.running import RunningStat


class GNN(nn.Module):
    def __init__(self, num_tasks, num_layer=2, emb_dim=16):
        super().__init__()
        self.gnn_node = GNN_node_Virtualnode(num_layer, emb_dim)
        self.graph_pred_linear = nn.Linear(emb_dim, num_tasks)
        self.aux_head = nn.Linear(emb_dim, 1)
        self.pool_stat = RunningStat(momentum=0.9)

    def forward(self, data, perturb=None):
        h_node = self.gnn_node(data["x"], data["edge_index"], data["edge_attr"], data["batch"], data["num_graphs"])
        if perturb is not None:
            h_node = h_node + perturb
        counts = torch.bincount(data["batch"], minlength=data["num_graphs"]).clamp(min=1).unsqueeze(1)
        h_graph = torch.zeros(data["num_graphs"], h_node.size(1)).index_add_(0, data["batch"], h_node) / counts
        if self.training:
            self.pool_stat.update(h_graph.mean(0))  # expect: TLK103 (running.py)
        else:
            h_graph = h_graph - self.pool_stat.mean
        return self.graph_pred_linear(h_graph), self.aux_head(h_graph).squeeze(1)
