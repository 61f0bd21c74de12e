# Source: https://github.com/WeiChengTseng/Pytorch-PCGrad/issues/2
# Shape: a PCGrad optimizer wrapper runs one joint forward for all tasks and packs each objective's gradient by backwarding it with retain_graph=True; the last objective retains as well, and nothing backwards through that graph afterwards, so the joint forward graph of every step stays alive until the next step's objectives replace it (the report: CUDA out of memory with 15 losses).
# Verdict: leak
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

    def pc_backward(self, objectives):
        grads = self._pack_grad(objectives)
        merged = self._project_conflicting(grads)
        offset = 0
        for p in self.params:
            p.grad = merged[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()

    def _pack_grad(self, objectives):
        grads = []
        for obj in objectives:
            self._optim.zero_grad(set_to_none=True)
            obj.backward(retain_graph=True)  # TLK201
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
            seg, dep, nrm = net(x)
            objectives = [F.cross_entropy(seg, labels), F.l1_loss(dep.squeeze(-1), depth), 1 - F.cosine_similarity(nrm, normals).mean()]
            opt.zero_grad()
            opt.pc_backward(objectives)
            opt.step()
