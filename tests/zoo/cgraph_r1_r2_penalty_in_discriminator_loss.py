# Source: https://github.com/brownvc/R3GAN/issues/20
# Shape: the relativistic GAN trainer of the report: zero-centred R1 and R2 penalties from autograd.grad(create_graph=True) enter the discriminator loss, whose backward differentiates them again (the maintainer: they must not be detached); the history dict receives only .item() floats.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def zero_centered_gradient_penalty(samples, critics):
    (gradient,) = torch.autograd.grad(outputs=critics.sum(), inputs=samples, create_graph=True)
    return gradient.square().sum(dim=[1, 2, 3])


class AdversarialTraining:
    def __init__(self, generator: nn.Module, discriminator: nn.Module, gamma=0.05, lr=2e-4):
        self.G, self.D = generator, discriminator
        self.gamma = gamma
        self.opt_g = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.0, 0.99))
        self.opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.0, 0.99))
        self.history = defaultdict(list)

    def discriminator_step(self, noise, reals):
        reals = reals.detach().requires_grad_(True)
        fakes = self.G(noise).detach().requires_grad_(True)
        real_logits, fake_logits = self.D(reals), self.D(fakes)
        relativistic = F.softplus(-(real_logits - fake_logits))
        r1 = zero_centered_gradient_penalty(reals, real_logits)
        r2 = zero_centered_gradient_penalty(fakes, fake_logits)
        d_loss = (relativistic + (self.gamma / 2) * (r1 + r2)).mean()
        self.opt_d.zero_grad(set_to_none=True)
        d_loss.backward()
        self.opt_d.step()
        self.history["r1"].append(r1.mean().item())
        self.history["r2"].append(r2.mean().item())
        return d_loss.item()

    def generator_step(self, noise, reals):
        fakes = self.G(noise)
        g_loss = F.softplus(-(self.D(fakes) - self.D(reals))).mean()
        self.opt_g.zero_grad(set_to_none=True)
        g_loss.backward()
        self.opt_g.step()
        return g_loss.item()

    def run(self, loader, latent_dim=64):
        for reals in loader:
            noise = torch.randn(reals.size(0), latent_dim)
            self.history["d"].append(self.discriminator_step(noise, reals))
            self.history["g"].append(self.generator_step(noise, reals))
