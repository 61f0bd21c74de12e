# Source: https://github.com/pytorch/pytorch/issues/64586
# Shape: a WGAN-GP critic step computes the penalty from autograd.grad(create_graph=True), backwards it the same step, and also files the raw gradient-norm tensor in a diagnostics history for plotting.
# Verdict: clean
import torch
import torch.nn as nn
from torch import autograd


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(8, 2, generator=g) * 0.5 + 1.0 for _ in range(n)]


class GPTrainer:
    def __init__(self, z_dim=4, lam=10.0):
        self.G = nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, 2))
        self.D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.z_dim, self.lam = z_dim, lam
        self.history = {"d_loss": [], "grad_norm": []}

    def gradient_penalty(self, real, fake):
        eta = torch.rand(real.size(0), 1)
        mix = (eta * real + (1 - eta) * fake).requires_grad_(True)
        scores = self.D(mix)
        grads = autograd.grad(outputs=scores, inputs=mix, grad_outputs=torch.ones_like(scores),
                              create_graph=True, retain_graph=True)[0]
        norm = grads.norm(2, dim=1)
        return ((norm - 1) ** 2).mean() * self.lam, norm.mean()

    def critic_step(self, real):
        z = torch.randn(real.size(0), self.z_dim)
        fake = self.G(z).detach()
        gp, gnorm = self.gradient_penalty(real, fake)
        d_loss = self.D(fake).mean() - self.D(real).mean() + gp
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        self.history["d_loss"].append(d_loss.item())
        self.history["grad_norm"].append(gnorm.item())

    def generator_step(self, bs):
        z = torch.randn(bs, self.z_dim)
        g_loss = -self.D(self.G(z)).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()


def run(batches):
    tr = GPTrainer()
    for i, real in enumerate(batches):
        tr.critic_step(real)
        if i % 2 == 1:
            tr.generator_step(real.size(0))
    print("d_loss", tr.history["d_loss"][-1])


if __name__ == "__main__":
    run(make_batches())
