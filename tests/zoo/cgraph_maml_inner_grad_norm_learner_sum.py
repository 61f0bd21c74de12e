# Source: https://github.com/wyharveychen/CloserLookFewShot/issues/62
# Shape: a MAML sine-regression meta-learner takes second-order inner steps with autograd.grad(create_graph=True) and adds the inner gradient norm tensor to an epoch-level statistic on the learner.
# Verdict: leak
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(1, 32)
        self.l2 = nn.Linear(32, 1)

    def functional(self, x, params):
        w1, b1, w2, b2 = params
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    tasks = []
    for _ in range(n):
        amp = 0.1 + 4.9 * torch.rand(1, generator=g)
        phase = math.pi * torch.rand(1, generator=g)
        xs = torch.rand(10, 1, generator=g) * 10 - 5
        xq = torch.rand(10, 1, generator=g) * 10 - 5
        tasks.append((xs, amp * torch.sin(xs + phase), xq, amp * torch.sin(xq + phase)))
    return tasks


class MetaLearner:
    def __init__(self, inner_lr=0.01, inner_steps=2):
        self.net = SineNet()
        self.meta_opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.inner_lr, self.inner_steps = inner_lr, inner_steps
        self.inner_gnorm_sum = 0.0
        self.n_tasks = 0

    def adapt(self, xs, ys):
        fast = list(self.net.parameters())
        for _ in range(self.inner_steps):
            loss = F.mse_loss(self.net.functional(xs, fast), ys)
            grads = torch.autograd.grad(loss, fast, create_graph=True)
            gnorm = torch.sqrt(sum((g ** 2).sum() for g in grads))
            self.inner_gnorm_sum = self.inner_gnorm_sum + gnorm  # TLK301
            fast = [w - self.inner_lr * g for w, g in zip(fast, grads)]
        return fast

    def meta_step(self, task):
        xs, ys, xq, yq = task
        fast = self.adapt(xs, ys)
        outer = F.mse_loss(self.net.functional(xq, fast), yq)
        self.meta_opt.zero_grad()
        outer.backward()
        self.meta_opt.step()
        self.n_tasks += 1
        return outer.item()


def run(batches):
    learner = MetaLearner()
    losses = [learner.meta_step(task) for task in batches]
    print("meta loss", sum(losses) / len(losses), "mean inner gnorm", float(learner.inner_gnorm_sum) / max(learner.n_tasks, 1))


if __name__ == "__main__":
    run(make_batches())
