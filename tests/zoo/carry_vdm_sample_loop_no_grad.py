# Source: https://github.com/DavidRuhe/simple-variational-diffusion-models/pull/5
# Shape: the same variational diffusion sampler after the fix: sample_loop runs under @torch.no_grad(), so the latent fed from one timestep into the next carries no graph.
# Verdict: clean
import math

import torch
import torch.nn as nn


class ScoreNet(nn.Module):
    def __init__(self, dim=784, hidden=512):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, z, gamma_t):
        return self.net(torch.cat([z, gamma_t.expand(z.size(0), 1)], dim=1))


class VDM(nn.Module):
    def __init__(self, dim=784, num_steps=100, gamma_min=-13.3, gamma_max=5.0):
        super().__init__()
        self.score = ScoreNet(dim)
        self.dim, self.num_steps = dim, num_steps
        self.gamma_min, self.gamma_max = gamma_min, gamma_max

    def gamma(self, t):
        return self.gamma_min + (self.gamma_max - self.gamma_min) * t

    def sample_step(self, z, t, s):
        gamma_t, gamma_s = self.gamma(t), self.gamma(s)
        alpha_sq_s, alpha_sq_t = torch.sigmoid(-gamma_s), torch.sigmoid(-gamma_t)
        sigma_sq_s = torch.sigmoid(gamma_s)
        c = -torch.expm1(gamma_s - gamma_t)
        eps_hat = self.score(z, gamma_t)
        mean = (alpha_sq_s / alpha_sq_t).sqrt() * (z - c * torch.sigmoid(gamma_t).sqrt() * eps_hat)
        return mean + (c * sigma_sq_s).sqrt() * torch.randn_like(z)

    @torch.no_grad()
    def sample_loop(self, batch_size):
        z = torch.randn(batch_size, self.dim)
        for i in range(self.num_steps, 0, -1):
            t = torch.tensor([[i / self.num_steps]])
            s = torch.tensor([[(i - 1) / self.num_steps]])
            z = self.sample_step(z, t, s)
        return torch.sigmoid(z * math.sqrt(1.0))


def log_samples(model, epoch, n=16):
    model.eval()
    images = model.sample_loop(n)
    model.train()
    side = int(math.sqrt(model.dim))
    return images.view(n, 1, side, side)
