# Source: https://github.com/rtqichen/torchdiffeq/issues/247
# Shape: the Jacobian-Frobenius penalty kept in self.reg_history is stored as jac_reg.item(), a float, so the create_graph double-backward graph is freed once loss.backward() has used it.
# Verdict: clean
import torch
import torch.nn as nn


class ODEfunc(nn.Module):
    def __init__(self, dim=16, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.Softplus(), nn.Linear(hidden, hidden), nn.Softplus(), nn.Linear(hidden, dim))

    def forward(self, t, y):
        tt = torch.ones_like(y[:, :1]) * t
        return self.net(torch.cat([tt, y], dim=1))


class RegularizedODEfunc(nn.Module):
    """Wraps the dynamics and integrates a Hutchinson estimate of ||df/dy||_F^2 alongside the state."""

    def __init__(self, odefunc):
        super().__init__()
        self.odefunc = odefunc
        self._e = None

    def before_odeint(self, e):
        self._e = e

    def forward(self, t, state):
        y = state[0]
        with torch.enable_grad():
            if not y.requires_grad:
                y = y.detach().requires_grad_(True)
            dy = self.odefunc(t, y)
            e_dfdy = torch.autograd.grad(dy, y, self._e, create_graph=True)[0]
            jac_frob = e_dfdy.pow(2).sum(dim=1).mean()
        return dy, jac_frob


def odeint_rk4(func, y0, t0=0.0, t1=1.0, nsteps=2):
    h = (t1 - t0) / nsteps
    y, reg = y0, torch.zeros(())
    t = t0
    for _ in range(nsteps):
        k1, r1 = func(t, (y,))
        k2, r2 = func(t + h / 2, (y + h / 2 * k1,))
        k3, r3 = func(t + h / 2, (y + h / 2 * k2,))
        k4, r4 = func(t + h, (y + h * k3,))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        reg = reg + h / 6 * (r1 + 2 * r2 + 2 * r3 + r4)
        t += h
    return y, reg


class Trainer(object):
    def __init__(self, func, lr=1e-3, jac_coeff=0.01):
        self.func = func
        self.jac_coeff = jac_coeff
        self.optimizer = torch.optim.Adam(func.parameters(), lr=lr)
        self.reg_history = []
        self.loss_meter = []

    def compute_loss(self, x0, x1):
        self.func.before_odeint(torch.randn_like(x0))
        pred_x1, jac_reg = odeint_rk4(self.func, x0)
        mse = torch.mean((pred_x1 - x1) ** 2)
        return mse + self.jac_coeff * jac_reg, mse, jac_reg

    def train_step(self, x0, x1):
        self.optimizer.zero_grad()
        loss, mse, jac_reg = self.compute_loss(x0, x1)
        loss.backward()
        self.optimizer.step()
        self.loss_meter.append(mse.item())
        self.reg_history.append(jac_reg.item())
        return loss.item()


def make_batches(n):
    g = torch.Generator().manual_seed(247)
    out = []
    for _ in range(n):
        x0 = torch.randn(32, 16, generator=g)
        out.append((x0, torch.tanh(x0) + 0.1 * torch.randn(32, 16, generator=g)))
    return out


def run(batches):
    torch.manual_seed(0)
    func = RegularizedODEfunc(ODEfunc())
    trainer = Trainer(func)
    total = 0.0
    for x0, x1 in batches:
        total += trainer.train_step(x0, x1)
    return total / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
