# Source: https://github.com/adriansahlman/stylegan2_pytorch/pull/11
# Shape: generator and discriminator loss helpers return (loss, stats) where stats holds the loss terms as tensors; the trainer backwards the loss and sums every stats entry into a dict of running totals that is printed every log_every steps, so each step's generator and discriminator graphs stay alive in the totals (the fix made the helpers return Python scalars).
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def generator_loss(G, D, latents):
    fakes = G(latents)
    adv = F.softplus(-D(fakes)).mean()
    return adv, {"G_adv": adv}


def discriminator_loss(G, D, latents, reals):
    with torch.no_grad():
        fakes = G(latents)
    real_term = F.softplus(-D(reals)).mean()
    fake_term = F.softplus(D(fakes)).mean()
    d_loss = real_term + fake_term
    return d_loss, {"D_real": real_term, "D_fake": fake_term}


class GanTrainer:
    def __init__(self, G: nn.Module, D: nn.Module, latent_dim=32, log_every=100):
        self.G, self.D = G, D
        self.latent_dim = latent_dim
        self.log_every = log_every
        self.g_opt = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.d_opt = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.running = defaultdict(float)

    def train(self, reals_iter, steps):
        for step, reals in zip(range(steps), reals_iter):
            z = torch.randn(reals.size(0), self.latent_dim)
            d_loss, d_stats = discriminator_loss(self.G, self.D, z, reals)
            self.d_opt.zero_grad()
            d_loss.backward()
            self.d_opt.step()

            z = torch.randn(reals.size(0), self.latent_dim)
            g_loss, g_stats = generator_loss(self.G, self.D, z)
            self.g_opt.zero_grad()
            g_loss.backward()
            self.g_opt.step()

            for name, value in {**d_stats, **g_stats}.items():
                self.running[name] += value  # TLK101
            if (step + 1) % self.log_every == 0:
                print(step + 1, {k: float(v) / self.log_every for k, v in self.running.items()})
                self.running.clear()
