# Source: https://github.com/mayankjha-my/PINN/blob/91327a21588ee0e2d7d6a468df0245f9562887ee/src2/utils.py
# Shape: u_t, u_x and u_xx come from gradients(), i.e. autograd.grad(..., create_graph=True), and feed the Burgers residual that is backwarded every step; the history only receives .item() floats and the monitored boundary slope is taken with .detach(), so no double-backward graph outlives its step.
# Verdict: clean
import math

import torch
import torch.nn as nn


def gradients(u, x):
    return torch.autograd.grad(
        u, x,
        grad_outputs=torch.ones_like(u),
        retain_graph=True,
        create_graph=True
    )[0]


class FCN(nn.Module):
    def __init__(self, layers=(2, 32, 32, 32, 1)):
        super().__init__()
        mods = []
        for i in range(len(layers) - 2):
            mods += [nn.Linear(layers[i], layers[i + 1]), nn.Tanh()]
        mods.append(nn.Linear(layers[-2], layers[-1]))
        self.net = nn.Sequential(*mods)

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


class BurgersPINN:
    def __init__(self, nu=0.01 / math.pi, n_f=1024, n_b=128, lr=1e-3):
        self.nu = nu
        self.n_f = n_f
        self.n_b = n_b
        self.model = FCN()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.history = {'loss': [], 'loss_f': [], 'loss_u': [], 'slope_left': []}

    def residual(self, x, t):
        u = self.model(x, t)
        u_t = gradients(u, t)
        u_x = gradients(u, x)
        u_xx = gradients(u_x, x)
        return u_t + u * u_x - self.nu * u_xx, u_x

    def sample(self, seed):
        g = torch.Generator().manual_seed(seed)
        x_f = (2 * torch.rand(self.n_f, 1, generator=g) - 1).requires_grad_(True)
        t_f = torch.rand(self.n_f, 1, generator=g).requires_grad_(True)
        x_0 = 2 * torch.rand(self.n_b, 1, generator=g) - 1
        t_b = torch.rand(self.n_b, 1, generator=g)
        x_b = torch.where(torch.rand(self.n_b, 1, generator=g) < 0.5, -1.0, 1.0)
        return x_f, t_f, x_0, t_b, x_b

    def train_step(self, seed):
        x_f, t_f, x_0, t_b, x_b = self.sample(seed)
        f, u_x = self.residual(x_f, t_f)
        loss_f = f.pow(2).mean()
        u_0 = self.model(x_0, torch.zeros_like(x_0))
        loss_u = (u_0 + torch.sin(math.pi * x_0)).pow(2).mean() + self.model(x_b, t_b).pow(2).mean()
        loss = loss_f + loss_u

        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        self.history['loss'].append(loss.item())
        self.history['loss_f'].append(loss_f.item())
        self.history['loss_u'].append(loss_u.item())
        self.history['slope_left'].append(u_x.detach()[x_f.detach() < -0.9].mean().item())
        return loss.item()


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    pinn = BurgersPINN()
    for seed in batches:
        pinn.train_step(seed)
    return pinn.history
