# Source: https://github.com/pytorch/pytorch/issues/30592
# Shape: WGAN-GP with a LayerNorm critic: a function takes the input gradient at random interpolates with autograd.grad(create_graph=True) and returns the penalty, which the caller adds to the critic loss and backwards in the same iteration; only floats are logged (the growth in the report came from a double-backward bug in LayerNorm, fixed in PyTorch, not from the training code).
# Verdict: clean
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, n, bias=False), nn.LayerNorm(n), nn.LeakyReLU(0.2), nn.Linear(n, 1))

    def forward(self, x):
        return self.net(x)


def calc_gradient_penalty(critic, real_data, fake_data):
    eps = torch.rand(real_data.size(0), 1).expand_as(real_data)
    interpolates = (eps * real_data + (1 - eps) * fake_data).requires_grad_(True)
    scores = critic(interpolates)
    gradients = torch.autograd.grad(outputs=scores, inputs=interpolates, grad_outputs=torch.ones_like(scores),
                                    create_graph=True, retain_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def train_critic(critic, sample_real, sample_fake, steps=10_000, gp_weight=10.0):
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
    wasserstein = []
    for step in range(steps):
        real, fake = sample_real(), sample_fake()
        optimizer.zero_grad()
        d_real = critic(real).mean()
        d_fake = critic(fake).mean()
        penalty = calc_gradient_penalty(critic, real, fake)
        loss = d_fake - d_real + gp_weight * penalty
        loss.backward()
        optimizer.step()
        wasserstein.append((d_real - d_fake).item())
    return wasserstein
