# Source: https://github.com/wyharveychen/CloserLookFewShot/issues/62
# Shape: a gradient-agreement tracker keeps the flattened create_graph=True inner-loop gradients of every meta-iteration in a list, so each meta-step's double-backward graph outlives it.
# Verdict: leak
"""Functional MAML on sine-wave regression tasks, with a tracker of inner-gradient agreement."""
import math
import torch
import torch.nn.functional as F

HID, K_SHOT, TASKS, INNER_LR, INNER_STEPS = 20, 5, 2, 0.05, 1


def init_params(g):
    def w(*shape, scale):
        return (torch.randn(*shape, generator=g) * scale).requires_grad_()
    return [w(HID, 1, scale=1.0), torch.zeros(HID, requires_grad=True),
            w(HID, HID, scale=1 / math.sqrt(HID)), torch.zeros(HID, requires_grad=True),
            w(1, HID, scale=1 / math.sqrt(HID)), torch.zeros(1, requires_grad=True)]


def forward(params, x):
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    return F.linear(h, w3, b3)


class GradAgreementTracker:
    """Keeps each meta-iteration's mean inner gradient to report cosine agreement over time."""

    def __init__(self):
        self.snapshots = []

    def record(self, task_grads):
        flat = torch.stack([torch.cat([g.reshape(-1) for g in grads]) for grads in task_grads]).mean(0)
        self.snapshots.append(flat)  # TLK301

    def last_agreement(self):
        if len(self.snapshots) < 2:
            return 0.0
        return float(F.cosine_similarity(self.snapshots[-1], self.snapshots[-2], dim=0))


def adapt(params, x_s, y_s):
    fast = params
    grads = None
    for _ in range(INNER_STEPS):
        inner = F.mse_loss(forward(fast, x_s), y_s)
        grads = torch.autograd.grad(inner, fast, create_graph=True)
        fast = [p - INNER_LR * g for p, g in zip(fast, grads)]
    return fast, grads


def make_batches(n):
    g = torch.Generator().manual_seed(10)
    out = []
    for _ in range(n):
        tasks = []
        for _ in range(TASKS):
            amp = 0.1 + 4.9 * torch.rand(1, generator=g)
            phase = math.pi * torch.rand(1, generator=g)
            x = 10 * torch.rand(2 * K_SHOT, 1, generator=g) - 5
            y = amp * torch.sin(x + phase)
            tasks.append((x[:K_SHOT], y[:K_SHOT], x[K_SHOT:], y[K_SHOT:]))
        out.append(tasks)
    return out


def run(batches):
    params = init_params(torch.Generator().manual_seed(0))
    meta_opt = torch.optim.Adam(params, lr=1e-3)
    tracker = GradAgreementTracker()
    agreements = []
    for tasks in batches:
        meta_opt.zero_grad()
        outer, task_grads = 0.0, []
        for x_s, y_s, x_q, y_q in tasks:
            fast, grads = adapt(params, x_s, y_s)
            outer = outer + F.mse_loss(forward(fast, x_q), y_q)
            task_grads.append(grads)
        (outer / len(tasks)).backward()
        meta_opt.step()
        tracker.record(task_grads)
        agreements.append(tracker.last_agreement())
    return agreements[-3:]


if __name__ == "__main__":
    print(run(make_batches(20)))
