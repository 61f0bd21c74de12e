# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
# Shape: the EvolveGCN-O style layer keeps its evolved weight on the module across the snapshots of one epoch (backpropagation through the whole sequence, one backward per epoch) and the loop calls reset_weight() at the start of every epoch, so each epoch's graph starts from the parameter again.
# Verdict: clean
import torch
import torch.nn as nn


class EvolvingGCN(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.randn(in_channels, in_channels) * 0.1)
        self.evolver = nn.GRUCell(in_channels, in_channels)
        self.weight = None

    def reset_weight(self):
        self.weight = None

    def forward(self, x, adj_norm):
        w = self.initial_weight if self.weight is None else self.weight
        w = self.evolver(w, w)
        self.weight = w
        return adj_norm @ x @ w


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolvingGCN(node_features)
        self.linear = nn.Linear(node_features, 1)

    def forward(self, x, adj_norm):
        return self.linear(torch.relu(self.recurrent(x, adj_norm)))


def normalise(adj):
    adj = adj + torch.eye(adj.size(0))
    deg = adj.sum(1).rsqrt()
    return deg[:, None] * adj * deg[None, :]


def fit(model, snapshots, epochs=50, lr=0.01):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for epoch in range(epochs):
        model.recurrent.reset_weight()
        cost = 0
        for time, (x, adj, y) in enumerate(snapshots):
            y_hat = model(x, normalise(adj))
            cost = cost + torch.mean((y_hat.squeeze(-1) - y) ** 2)
        cost = cost / (time + 1)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
    return model
