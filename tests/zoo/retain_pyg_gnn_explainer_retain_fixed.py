# Source: https://github.com/pyg-team/pytorch_geometric/pull/5967
# Shape: a plain loss_value.backward() frees each epoch's saved activations; every epoch rebuilds the forward, so nothing needs the old graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

N_NODES = 96
N_FEATS = 16
N_CLASSES = 4


def gcn_norm(edge_index, edge_weight, num_nodes):
    row, col = edge_index
    deg = torch.zeros(num_nodes).index_add(0, col, edge_weight)
    deg_inv_sqrt = deg.clamp(min=1e-12).pow(-0.5)
    return deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_index, edge_weight=None):
        num_nodes = x.size(0)
        loops = torch.arange(num_nodes)
        edge_index = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
        if edge_weight is None:
            edge_weight = torch.ones(edge_index.size(1) - num_nodes)
        edge_weight = torch.cat([edge_weight, torch.ones(num_nodes)])
        norm = gcn_norm(edge_index, edge_weight, num_nodes)
        x = self.lin(x)
        msg = x[edge_index[0]] * norm.unsqueeze(-1)
        return torch.zeros_like(x).index_add(0, edge_index[1], msg) + self.bias


class GCN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.conv1 = GCNConv(N_FEATS, hidden)
        self.conv2 = GCNConv(hidden, N_CLASSES)

    def forward(self, x, edge_index, edge_weight=None):
        x = F.relu(self.conv1(x, edge_index, edge_weight))
        return F.log_softmax(self.conv2(x, edge_index, edge_weight), dim=-1)


class GNNExplainer:
    coeffs = {"edge_size": 0.005, "edge_ent": 1.0, "node_feat_size": 1.0, "node_feat_ent": 0.1}

    def __init__(self, model, lr=0.01):
        self.model = model
        self.lr = lr

    def initialize(self, x, edge_index):
        N, F_ = x.size()
        E = edge_index.size(1)
        std = torch.nn.init.calculate_gain("relu") * (2.0 / (2 * N)) ** 0.5
        self.node_mask = nn.Parameter(torch.randn(N, F_) * 0.1)
        self.edge_mask = nn.Parameter(torch.randn(E) * std)
        self.optimizer = torch.optim.Adam([self.node_mask, self.edge_mask], lr=self.lr)

    def _loss(self, log_logits, target, index):
        loss = -log_logits[index, target[index]].sum()
        m = self.edge_mask.sigmoid()
        loss = loss + self.coeffs["edge_size"] * m.sum()
        ent = -m * torch.log(m + 1e-15) - (1 - m) * torch.log(1 - m + 1e-15)
        loss = loss + self.coeffs["edge_ent"] * ent.mean()
        m = self.node_mask.sigmoid()
        loss = loss + self.coeffs["node_feat_size"] * m.mean()
        return loss

    def train_step(self, x, edge_index, target, index):
        self.optimizer.zero_grad()
        h = x * self.node_mask.sigmoid()
        out = self.model(h, edge_index, edge_weight=self.edge_mask.sigmoid())
        loss_value = self._loss(out, target, index)
        loss_value.backward()
        self.optimizer.step()
        return loss_value


def build_graph():
    g = torch.Generator().manual_seed(11)
    x = torch.randn(N_NODES, N_FEATS, generator=g)
    src = torch.randint(0, N_NODES, (4 * N_NODES,), generator=g)
    dst = torch.randint(0, N_NODES, (4 * N_NODES,), generator=g)
    edge_index = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
    return x, edge_index


def make_batches(n):
    # one entry per explainer epoch
    return list(range(n))


def run(batches):
    torch.manual_seed(0)
    x, edge_index = build_graph()
    model = GCN()
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    with torch.no_grad():
        target = model(x, edge_index).argmax(dim=-1)
    index = torch.arange(0, N_NODES, 8)
    explainer = GNNExplainer(model, lr=0.01)
    explainer.initialize(x, edge_index)
    history = []
    loss_value = None
    for epoch in batches:
        loss_value = explainer.train_step(x, edge_index, target, index)
        history.append(float(loss_value))
    edge_mask = explainer.edge_mask.detach().sigmoid()
    return edge_mask, history
