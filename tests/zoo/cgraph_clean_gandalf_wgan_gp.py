# Source: https://github.com/BCHoagland/Gandalf/blob/89b6ff4ce5779a71f4eafe7ef7feb8a26dfac5d5/gandalf/algos/wgan_gp.py
# Shape: looks like a create_graph leak (gradient penalty from autograd.grad(create_graph=True) every critic step, a logger keeping per-step values on the algorithm object), but the penalty graph is consumed by the critic's backward and the logger only ever receives .item() floats.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn as nn
from torch.autograd import grad


class Model(nn.Module):
    """Gandalf-style network that owns its optimizer."""

    def __init__(self, net, lr=1e-4):
        super().__init__()
        self.net = net
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr, betas=(0.5, 0.9))

    def forward(self, x):
        return self.net(x)

    def minimize(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def maximize(self, loss):
        self.minimize(-loss)


class Logger:
    def __init__(self):
        self.history = defaultdict(list)

    def log(self, name, value):
        self.history[name].append(value)


class Algo:
    def __init__(self, z_dim=16, batch_size=32, λ=10.0):
        self.z_dim = z_dim
        self.batch_size = batch_size
        self.λ = λ
        self.logger = Logger()

    def noise(self):
        return torch.randn(self.batch_size, self.z_dim)

    def interpolate(self, x, x_gen):
        eps = torch.rand(x.size(0), 1)
        return (eps * x + (1 - eps) * x_gen.detach()).requires_grad_()

    def norm(self, g):
        return g.view(g.size(0), -1).norm(2, dim=1)


class WGAN_GP(Algo):
    def optimize_D(self, G, D, x):
        z = self.noise()
        x_gen = G(z)
        x_inter = self.interpolate(x, x_gen)

        out = D(x_inter)
        grads = grad(out, x_inter, torch.ones(out.shape), create_graph=True)[0]
        grad_penalty = self.λ * ((self.norm(grads) - 1) ** 2).mean()

        wasserstein = D(x).mean() - D(x_gen.detach()).mean()
        d_loss = wasserstein - grad_penalty
        D.maximize(d_loss)
        self.logger.log("wasserstein", wasserstein.item())
        self.logger.log("grad_penalty", grad_penalty.item())

    def optimize_G(self, G, D):
        g_loss = -D(G(self.noise())).mean()
        G.minimize(g_loss)
        self.logger.log("g_loss", g_loss.item())


def make_batches(n):
    return list(range(n))


def data(seeds, batch_size=32):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.randn(batch_size, 64, generator=g) * 0.5 + 1.0


def run(batches, n_critic=2):
    torch.manual_seed(0)
    G = Model(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64)))
    D = Model(nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1)))
    algo = WGAN_GP()
    for i, x in enumerate(data(batches)):
        algo.optimize_D(G, D, x)
        if i % n_critic == 0:
            algo.optimize_G(G, D)
    return {k: v[-1] for k, v in algo.logger.history.items()}


if __name__ == "__main__":
    print(run(make_batches(4)))
