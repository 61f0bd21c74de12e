# Source: https://github.com/wei-mao-2019/LearnTrajDep/issues/23
# Shape: the per-epoch stats dict sums euler_error() computed on the attached prediction, so every batch's error graph is chained into totals["euler"].
# Verdict: leak
import math
from collections import defaultdict

import torch
import torch.nn as nn


def get_dct_matrix(n):
    m = torch.zeros(n, n)
    for k in range(n):
        w = math.sqrt(1.0 / n) if k == 0 else math.sqrt(2.0 / n)
        for i in range(n):
            m[k, i] = w * math.cos(math.pi * (i + 0.5) * k / n)
    return m, m.t().contiguous()


class GraphConvBlock(nn.Module):
    def __init__(self, nodes, feat):
        super().__init__()
        self.att = nn.Parameter(torch.eye(nodes) + 0.01 * torch.randn(nodes, nodes))
        self.lin = nn.Linear(feat, feat)
        self.act = nn.Tanh()

    def forward(self, x):
        return x + self.act(self.att @ self.lin(x))


class MotionGCN(nn.Module):
    def __init__(self, nodes=9, dct_n=8, blocks=2):
        super().__init__()
        self.blocks = nn.Sequential(*[GraphConvBlock(nodes, dct_n) for _ in range(blocks)])

    def forward(self, x):
        return self.blocks(x)


def mpjpe_error(pred, target):
    return (pred - target).reshape(pred.shape[0], -1, 3, pred.shape[-1]).norm(dim=2).mean()


def euler_error(pred, target):
    return (pred - target).abs().sum(dim=1).mean()


def train_epoch(model, batches, opt, dct_m, idct_m):
    totals = defaultdict(float)
    seen = 0
    for batch in batches:
        seq, target = batch
        coef = seq @ dct_m.t()
        out = model(coef)
        pred = out @ idct_m.t()
        loss = mpjpe_error(pred, target)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        n = seq.shape[0]
        totals["mpjpe"] += loss.item() * n
        totals["euler"] += euler_error(pred, target) * n  # TLK101
        seen += n
    return {k: float(v) / seen for k, v in totals.items()}


def make_batches(n, bs=4, nodes=9, frames=8):
    return [(torch.randn(bs, nodes, frames), torch.randn(bs, nodes, frames)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    dct_m, idct_m = get_dct_matrix(8)
    model = MotionGCN()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    train_epoch(model, batches, opt, dct_m, idct_m)
