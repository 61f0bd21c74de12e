# Source: https://github.com/metaopt/torchopt/pull/113
# Shape: fixed twin: first-order MAML never differentiates through the inner gradients, so the inner backward runs without create_graph and each inner network is freed after its task.
# Verdict: clean
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class MetaConfig:
    inner_lr: float = 0.01
    meta_lr: float = 1e-3
    inner_steps: int = 2
    tasks_per_batch: int = 2


class SineRegressor(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class MetaLearner:
    def __init__(self, meta_net, cfg):
        self.meta_net = meta_net
        self.cfg = cfg
        self.meta_opt = torch.optim.Adam(meta_net.parameters(), lr=cfg.meta_lr)

    def adapt(self, task):
        x_s, y_s, x_q, y_q = task
        inner_net = copy.deepcopy(self.meta_net)
        inner_opt = torch.optim.SGD(inner_net.parameters(), lr=self.cfg.inner_lr)
        for _ in range(self.cfg.inner_steps):
            inner_opt.zero_grad()
            inner_loss = F.mse_loss(inner_net(x_s), y_s)
            inner_loss.backward()
            inner_opt.step()
        query_loss = F.mse_loss(inner_net(x_q), y_q)
        grads = torch.autograd.grad(query_loss, list(inner_net.parameters()))
        return query_loss.item(), grads

    def meta_step(self, tasks):
        meta_grads = [torch.zeros_like(p) for p in self.meta_net.parameters()]
        losses = []
        for task in tasks:
            loss, grads = self.adapt(task)
            losses.append(loss)
            for acc, g in zip(meta_grads, grads):
                acc.add_(g / len(tasks))
        self.meta_opt.zero_grad()
        for p, g in zip(self.meta_net.parameters(), meta_grads):
            p.grad = g
        self.meta_opt.step()
        return sum(losses) / len(losses)


def make_batches(n):
    return list(range(n))


def sample_tasks(seed, cfg, k_shot=32):
    g = torch.Generator().manual_seed(seed)
    tasks = []
    for _ in range(cfg.tasks_per_batch):
        amp = torch.rand(1, generator=g) * 4.9 + 0.1
        phase = torch.rand(1, generator=g) * 3.14
        xs = torch.rand(2 * k_shot, 1, generator=g) * 10 - 5
        ys = amp * torch.sin(xs + phase)
        tasks.append((xs[:k_shot], ys[:k_shot], xs[k_shot:], ys[k_shot:]))
    return tasks


def run(batches):
    torch.manual_seed(0)
    cfg = MetaConfig()
    learner = MetaLearner(SineRegressor(), cfg)
    history = []
    for seed in batches:
        history.append(learner.meta_step(sample_tasks(seed, cfg)))
    return history[-1]


if __name__ == "__main__":
    print(run(make_batches(4)))
