# Source: https://github.com/martenlienen/torchode/issues/31
# Shape: every iteration the full-trajectory evaluation solve runs with grad enabled and its test loss tensor is appended to self.test_losses, so each evaluation's unrolled RK4 graph (all stage activations) stays alive.
# Verdict: leak
import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y ** 3)


def rk4_step(func, t, dt, y):
    k1 = func(t, y)
    k2 = func(t + dt / 2, y + dt * k1 / 2)
    k3 = func(t + dt / 2, y + dt * k2 / 2)
    k4 = func(t + dt, y + dt * k3)
    return y + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6


def odeint(func, y0, t):
    ys = [y0]
    y = y0
    for i in range(len(t) - 1):
        y = rk4_step(func, t[i], t[i + 1] - t[i], y)
        ys.append(y)
    return torch.stack(ys)


class SpiralProblem:
    def __init__(self, data_size=40, batch_time=8):
        self.true_y0 = torch.tensor([[2., 0.]])
        self.t = torch.linspace(0., 2., data_size)
        self.true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
        self.batch_time = batch_time
        with torch.no_grad():
            self.true_y = odeint(lambda t, y: torch.mm(y ** 3, self.true_A), self.true_y0, self.t)

    def get_batch(self, starts):
        s = torch.tensor(starts)
        batch_y0 = self.true_y[s]
        batch_t = self.t[: self.batch_time]
        batch_y = torch.stack([self.true_y[s + i] for i in range(self.batch_time)], dim=0)
        return batch_y0, batch_t, batch_y


class ODETrainer:
    def __init__(self, problem, func):
        self.problem = problem
        self.func = func
        self.optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-3)
        self.test_losses = []

    def train_step(self, starts):
        self.optimizer.zero_grad()
        batch_y0, batch_t, batch_y = self.problem.get_batch(starts)
        pred_y = odeint(self.func, batch_y0, batch_t)
        loss = torch.mean(torch.abs(pred_y - batch_y))
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def evaluate(self):
        pred_y = odeint(self.func, self.problem.true_y0, self.problem.t)
        test_loss = torch.mean(torch.abs(pred_y - self.problem.true_y))
        self.test_losses.append(test_loss)  # TLK102
        return pred_y


def make_batches(n):
    torch.manual_seed(0)
    # start indices of the sampled sub-trajectories
    return [torch.randint(0, 40 - 8, (16,)).tolist() for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    trainer = ODETrainer(SpiralProblem(), ODEFunc())
    for itr, starts in enumerate(batches, start=1):
        trainer.train_step(starts)
        trainer.evaluate()
    return [float(l) for l in trainer.test_losses[-3:]]
