# Source: https://github.com/wyharveychen/CloserLookFewShot/issues/62
# Shape: second-order MAML takes inner-loop grads with create_graph=True (the meta-loss backwards through them) and a monitor keeps only their detached norm across tasks.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class InnerLoopMonitor:
    def __init__(self):
        self.history = []

    def record(self, grads):
        total = torch.sqrt(sum(g.pow(2).sum() for g in grads))
        self.history.append(total.detach())

    def mean(self):
        return sum(float(x) for x in self.history) / max(1, len(self.history))


class Learner(nn.Module):
    def __init__(self, n_way=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, n_way))

    def forward(self, x):
        return self.net(x)


def adapt(model, xs, ys, monitor, steps=2, inner_lr=0.4):
    fast = dict(model.named_parameters())
    for _ in range(steps):
        loss = F.cross_entropy(functional_call(model, fast, (xs,)), ys)
        grads = torch.autograd.grad(loss, list(fast.values()), create_graph=True)
        monitor.record(grads)
        fast = {k: w - inner_lr * g for (k, w), g in zip(fast.items(), grads)}
    return fast


def make_batches(n):
    g = torch.Generator().manual_seed(8)
    out = []
    for _ in range(n):
        xs, xq = torch.randn(9, 5, generator=g), torch.randn(9, 5, generator=g)
        ys = torch.arange(3).repeat(3)
        yq = torch.arange(3).repeat(3)
        out.append((xs, ys, xq, yq))
    return out


def run(batches):
    model = Learner()
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    monitor = InnerLoopMonitor()
    for xs, ys, xq, yq in batches:
        fast = adapt(model, xs, ys, monitor)
        meta_loss = F.cross_entropy(functional_call(model, fast, (xq,)), yq)
        meta_opt.zero_grad()
        meta_loss.backward()
        meta_opt.step()
    return monitor.mean()


if __name__ == "__main__":
    print(run(make_batches(5)))
