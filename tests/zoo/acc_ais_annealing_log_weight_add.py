# Source: https://github.com/lxuechen/BDMC/pull/3
# Shape: annealed importance sampling over a VAE decoder: the chains z require grad (HMC needs dU/dz), and every annealing step adds log f_t1(z) - log f_t0(z), computed from the decoder outside torch.no_grad(), into the running log-weight with logw.add_(...); the log-weight is only read as a number, but it chains every annealing step's decoder graph (saved activations included) until the batch ends.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, z_dim=8, hidden=256, x_dim=196):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, x_dim))

    def forward(self, z):
        return self.net(z)


def log_normal(z):
    return -0.5 * (z.pow(2) + math.log(2 * math.pi)).sum(-1)


def log_bernoulli(logits, x):
    return -F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(-1)


def hmc_move(z, U, eps=0.01, n_leapfrog=3):
    def grad_U(q):
        q = q.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(U(q).sum(), q)
        return g

    v0 = torch.randn_like(z)
    q, v = z.detach(), v0 - 0.5 * eps * grad_U(z)
    for _ in range(n_leapfrog):
        q = q + eps * v
        v = v - eps * grad_U(q)
    with torch.no_grad():
        log_accept = U(z) - U(q) + 0.5 * (v0.pow(2).sum(-1) - v.pow(2).sum(-1))
        accept = (torch.rand_like(log_accept).log() < log_accept).unsqueeze(-1)
        new_z = torch.where(accept, q, z)
    return new_z.detach().requires_grad_(True)


def ais_trajectory(decoder, loader, schedule, n_sample=8, z_dim=8):
    def log_f(z, x, t):
        return log_normal(z) + t * log_bernoulli(decoder(z), x)

    logws = []
    for x in loader:
        x = x.repeat(n_sample, 1)
        logw = torch.zeros(x.size(0))
        z = torch.randn(x.size(0), z_dim, requires_grad=True)
        for t0, t1 in zip(schedule[:-1], schedule[1:]):
            logw.add_(log_f(z, x, t1) - log_f(z, x, t0))  # TLK101
            z = hmc_move(z, lambda q: -log_f(q, x, t1))
        logw = torch.logsumexp(logw.view(n_sample, -1), 0) - math.log(n_sample)
        logws.append(logw.mean().item())
    return logws


if __name__ == "__main__":
    torch.manual_seed(0)
    decoder = Decoder()
    for p in decoder.parameters():
        p.requires_grad_(False)
    loader = [torch.bernoulli(torch.full((16, 196), 0.3)) for _ in range(2)]
    schedule = torch.linspace(0.0, 1.0, 61).tolist()
    print(ais_trajectory(decoder, loader, schedule))
