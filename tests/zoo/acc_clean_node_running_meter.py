# Source: https://github.com/rtqichen/torchdiffeq/blob/01f1c190836a52588fef3fe5741d3ae5b029a23f/examples/ode_demo.py
# Shape: neural-ODE demo: RunningAverageMeter keeps an exponential moving average across iterations, but it is fed loss.item() (a float); the periodic test-trajectory loss runs under torch.no_grad().
# Verdict: clean
import time

import torch
import torch.nn as nn
import torch.optim as optim

DATA_SIZE = 200
BATCH_TIME = 10
BATCH_SIZE = 20
TEST_FREQ = 10
device = torch.device('cpu')


def odeint(func, y0, t):
    """Fixed-step RK4 stand-in for torchdiffeq.odeint (same call signature, returns (T, *y0.shape))."""
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
    return torch.stack(ys, dim=0)


true_y0 = torch.tensor([[2., 0.]]).to(device)
t = torch.linspace(0., 25., DATA_SIZE).to(device)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]]).to(device)


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t)


def get_batch(g):
    s = torch.randperm(DATA_SIZE - BATCH_TIME, generator=g)[:BATCH_SIZE]
    batch_y0 = true_y[s]  # (M, D)
    batch_t = t[:BATCH_TIME]  # (T)
    batch_y = torch.stack([true_y[s + i] for i in range(BATCH_TIME)], dim=0)  # (T, M, D)
    return batch_y0.to(device), batch_t.to(device), batch_y.to(device)


class ODEFunc(nn.Module):
    def __init__(self):
        super(ODEFunc, self).__init__()
        self.net = nn.Sequential(
            nn.Linear(2, 50),
            nn.Tanh(),
            nn.Linear(50, 2),
        )
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y ** 3)


class RunningAverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, momentum=0.99):
        self.momentum = momentum
        self.reset()

    def reset(self):
        self.val = None
        self.avg = 0

    def update(self, val):
        if self.val is None:
            self.avg = val
        else:
            self.avg = self.avg * self.momentum + val * (1 - self.momentum)
        self.val = val


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    func = ODEFunc().to(device)
    optimizer = optim.RMSprop(func.parameters(), lr=1e-3)
    end = time.time()
    time_meter = RunningAverageMeter(0.97)
    loss_meter = RunningAverageMeter(0.97)
    test_losses = []

    for itr, seed in enumerate(batches, 1):
        optimizer.zero_grad()
        batch_y0, batch_t, batch_y = get_batch(torch.Generator().manual_seed(seed))
        pred_y = odeint(func, batch_y0, batch_t).to(device)
        loss = torch.mean(torch.abs(pred_y - batch_y))
        loss.backward()
        optimizer.step()

        time_meter.update(time.time() - end)
        loss_meter.update(loss.item())

        if itr % TEST_FREQ == 0:
            with torch.no_grad():
                pred_y = odeint(func, true_y0, t[:50])
                loss = torch.mean(torch.abs(pred_y - true_y[:50]))
                test_losses.append(loss)
        end = time.time()
    return loss_meter, test_losses
