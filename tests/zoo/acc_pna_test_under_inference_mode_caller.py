# Source: https://github.com/lukecavabarrett/pna/pull/14
# Shape: the graph-regression benchmark after autograd was disabled for testing: test() itself is unchanged and still accumulates total_loss += loss * n over the test batches, but its only call site runs it inside torch.inference_mode(), so the losses it adds up are inference tensors without a graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class DenseGraphBatch:
    def __init__(self, x, adj, y):
        self.x, self.adj, self.y = x, adj, y
        self.num_graphs = x.size(0)


class PNALayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pre = nn.Linear(2 * dim, dim)
        self.post = nn.Linear(4 * dim, dim)

    def forward(self, h, adj):
        n = h.size(1)
        pair = torch.cat([h.unsqueeze(2).expand(-1, -1, n, -1), h.unsqueeze(1).expand(-1, n, -1, -1)], dim=-1)
        msg = F.relu(self.pre(pair)) * adj.unsqueeze(-1)
        deg = adj.sum(-1, keepdim=True).clamp(min=1)
        mean = msg.sum(2) / deg
        mx = msg.amax(2)
        std = (msg.pow(2).sum(2) / deg - mean.pow(2)).clamp(min=1e-5).sqrt()
        return h + F.relu(self.post(torch.cat([h, mean, mx, std], dim=-1)))


class PNA(nn.Module):
    def __init__(self, in_dim=8, dim=32, layers=4):
        super().__init__()
        self.embed = nn.Linear(in_dim, dim)
        self.layers = nn.ModuleList([PNALayer(dim) for _ in range(layers)])
        self.readout = nn.Linear(dim, 1)

    def forward(self, x, adj):
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h, adj)
        return self.readout(h.mean(1)).squeeze(-1)


def make_batches(n_batches, graphs=8, nodes=16, in_dim=8):
    batches = []
    for _ in range(n_batches):
        x = torch.randn(graphs, nodes, in_dim)
        adj = (torch.rand(graphs, nodes, nodes) < 0.2).float()
        adj = ((adj + adj.transpose(1, 2)) > 0).float()
        batches.append(DenseGraphBatch(x, adj, adj.sum((1, 2)) / nodes))
    return batches


def train_epoch(model, loader, optimizer):
    model.train()
    for batch in loader:
        optimizer.zero_grad()
        loss = F.l1_loss(model(batch.x, batch.adj), batch.y)
        loss.backward()
        optimizer.step()


def test(model, loader):
    model.eval()
    total_loss, total_graphs = 0, 0
    for batch in loader:
        pred = model(batch.x, batch.adj)
        loss = F.l1_loss(pred, batch.y)
        total_loss += loss * batch.num_graphs
        total_graphs += batch.num_graphs
    return total_loss / total_graphs


if __name__ == "__main__":
    torch.manual_seed(0)
    model = PNA()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_loader, test_loader = make_batches(4), make_batches(12)
    for epoch in range(2):
        train_epoch(model, train_loader, optimizer)
        with torch.inference_mode():
            test_mae = test(model, test_loader)
        print(epoch, float(test_mae))
