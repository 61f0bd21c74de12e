# Source: https://github.com/AvivNavon/nash-mtl/issues/16
# Shape: the CAGrad weight method with the condition corrected: every task loss but the last backwards with retain_graph=True, because the next task's backward goes through the same shared trunk, and the last one frees the shared trunk's part of the graph (the earlier tasks' own head branches stay until the losses are replaced, as in any retain-all-but-last loop).
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedTrunkNet(nn.Module):
    def __init__(self, d_in=16, hidden=64, n_tasks=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(hidden, 1) for _ in range(n_tasks)])

    def forward(self, x):
        feat = self.trunk(x)
        return [head(feat).squeeze(-1) for head in self.heads]


class CAGrad:
    def __init__(self, n_tasks, c=0.4):
        self.n_tasks = n_tasks
        self.c = c

    @staticmethod
    def grad2vec(shared_parameters, grads, task):
        grads[:, task] = torch.cat([p.grad.flatten() for p in shared_parameters])

    def combine(self, grads):
        g0 = grads.mean(1)
        gram = grads.t() @ grads
        w = torch.softmax(-gram.sum(0) / (gram.diag().sum() + 1e-8), 0)
        gw = grads @ w
        scale = self.c * g0.norm() / (gw.norm() + 1e-8)
        return (g0 + scale * gw) / (1 + self.c ** 2)

    def backward(self, losses, shared_parameters):
        shared_parameters = list(shared_parameters)
        grads = torch.zeros(sum(p.numel() for p in shared_parameters), self.n_tasks)
        for i in range(self.n_tasks):
            if i < self.n_tasks - 1:
                losses[i].backward(retain_graph=True)
            else:
                losses[i].backward()
            self.grad2vec(shared_parameters, grads, i)
            for p in shared_parameters:
                p.grad = None
        g = self.combine(grads)
        offset = 0
        for p in shared_parameters:
            p.grad = g[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()


def train(net, loader, epochs=1, lr=1e-3):
    method = CAGrad(n_tasks=len(net.heads))
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        for x, targets in loader:
            optimizer.zero_grad()
            preds = net(x)
            losses = [F.mse_loss(p, t) for p, t in zip(preds, targets.unbind(-1))]
            method.backward(losses, net.trunk.parameters())
            optimizer.step()
