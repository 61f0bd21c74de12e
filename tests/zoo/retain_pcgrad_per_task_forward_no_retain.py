# Source: https://github.com/WeiChengTseng/Pytorch-PCGrad/issues/2
# Shape: the PCGrad wrapper used the way the maintainer suggested for a large multi-task model: each task gets its own forward and a plain backward (no retained graph), and only the flattened per-task gradients are kept for the projection.
# Verdict: clean
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class PCGrad:
    def __init__(self, optimizer):
        self._optim = optimizer

    @property
    def params(self):
        return [p for group in self._optim.param_groups for p in group["params"]]

    def zero_grad(self):
        self._optim.zero_grad(set_to_none=True)

    def step(self):
        self._optim.step()

    def pc_backward(self, objective_fns):
        grads = self._pack_grad(objective_fns)
        merged = self._project_conflicting(grads)
        offset = 0
        for p in self.params:
            p.grad = merged[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()

    def _pack_grad(self, objective_fns):
        grads = []
        for objective_fn in objective_fns:
            self._optim.zero_grad(set_to_none=True)
            objective_fn().backward()
            grads.append(torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in self.params]))
        return grads

    @staticmethod
    def _project_conflicting(grads):
        projected = [g.clone() for g in grads]
        for g_i in projected:
            others = list(grads)
            random.shuffle(others)
            for g_j in others:
                dot = torch.dot(g_i, g_j)
                if dot < 0:
                    g_i -= dot * g_j / (g_j.norm() ** 2 + 1e-12)
        return torch.stack(projected).sum(0)


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=24, hidden=64, task_dims=(10, 1, 3)):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(hidden, d) for d in task_dims])

    def forward(self, x):
        z = self.encoder(x)
        return [head(z) for head in self.heads]


def fit(net, loader, epochs=1):
    opt = PCGrad(torch.optim.Adam(net.parameters(), lr=1e-3))
    for _ in range(epochs):
        for x, labels, depth, normals in loader:
            objective_fns = [
                lambda: F.cross_entropy(net(x)[0], labels),
                lambda: F.l1_loss(net(x)[1].squeeze(-1), depth),
                lambda: 1 - F.cosine_similarity(net(x)[2], normals).mean(),
            ]
            opt.zero_grad()
            opt.pc_backward(objective_fns)
            opt.step()
