# Source: https://github.com/rtqichen/torchdiffeq/issues/153
# Shape: a neural-ODE trainer hands the attached loss to its AverageMeter, whose update() does self.sum += val * n, so the meter's running sum chains every iteration's solver graph together.
# Verdict: leak
import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, dim=2, hidden=50):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim))
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.net(y ** 3)


def rk4_odeint(func, y0, t):
    """Fixed-grid RK4 (what odeint(method='rk4') does), returns (T, B, D)."""
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        k1 = func(t0, y)
        k2 = func(t0 + dt / 2, y + dt * k1 / 2)
        k3 = func(t0 + dt / 2, y + dt * k2 / 2)
        k4 = func(t1, y + dt * k3)
        y = y + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        ys.append(y)
    return torch.stack(ys)


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class ODETrainer:
    def __init__(self, func, true_y, t, batch_time=8, lr=1e-3):
        self.func = func
        self.true_y, self.t = true_y, t
        self.batch_time = batch_time
        self.optimizer = torch.optim.RMSprop(func.parameters(), lr=lr)
        self.loss_meter = AverageMeter()
        self.nfe_meter = AverageMeter()

    def get_batch(self, s):
        batch_y0 = self.true_y[s]
        batch_t = self.t[:self.batch_time]
        batch_y = torch.stack([self.true_y[s + i] for i in range(self.batch_time)], dim=0)
        return batch_y0, batch_t, batch_y

    def step(self, s):
        self.optimizer.zero_grad()
        batch_y0, batch_t, batch_y = self.get_batch(s)
        self.func.nfe = 0
        pred_y = rk4_odeint(self.func, batch_y0, batch_t)
        loss = torch.mean(torch.abs(pred_y - batch_y))
        loss.backward()
        self.optimizer.step()
        self.nfe_meter.update(self.func.nfe)
        self.loss_meter.update(loss, batch_y0.size(0))  # TLK101


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 200 - 8, (16,), generator=g) for _ in range(n)]


def run(batches):
    t = torch.linspace(0., 5., 200)
    true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
    with torch.no_grad():
        true_y = rk4_odeint(lambda t, y: torch.mm(y ** 3, true_A), torch.tensor([[2., 0.]]), t)[:, 0]
    trainer = ODETrainer(ODEFunc(), true_y, t)
    for s in batches:
        trainer.step(s)
    return trainer.loss_meter.avg, trainer.nfe_meter.avg
