# Source: https://github.com/pytorch/pytorch/issues/7714
# Shape: WGAN-GP style critic step: the gradient penalty on interpolated inputs uses autograd.grad(create_graph=True) once and is backwarded in the same iteration together with the critic loss; running statistics are kept as Python floats.
# Verdict: clean
import torch
import torch.nn as nn
from torch import autograd

BATCH = 32
DIM = 3 * 16 * 16


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 256), nn.Softplus(), nn.Linear(256, 128), nn.Softplus(), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x.flatten(1))


class Generator(nn.Module):
    def __init__(self, z_dim=32):
        super().__init__()
        self.z_dim = z_dim
        self.net = nn.Sequential(nn.Linear(z_dim, 256), nn.ReLU(), nn.Linear(256, DIM), nn.Sigmoid())

    def forward(self, z):
        return self.net(z).view(-1, 3, 16, 16)


def make_batches(n):
    g = torch.Generator().manual_seed(31)
    return [torch.rand(BATCH, 3, 16, 16, generator=g) ** 2 for _ in range(n)]


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = critic(interpolates)
    grads = autograd.grad(outputs=d_interp, inputs=interpolates, grad_outputs=torch.ones_like(d_interp),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


class CriticMeter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value):
        self.total += float(value)
        self.count += 1

    @property
    def avg(self):
        return self.total / max(1, self.count)


def run(steps, lambda_gp=10.0):
    torch.manual_seed(0)
    critic, gen = Critic(), Generator()
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.5, 0.9))
    meter = CriticMeter()
    for i, real in enumerate(make_batches(steps)):
        fake = gen(torch.randn(real.size(0), gen.z_dim)).detach()
        opt_d.zero_grad()
        d_loss = critic(fake).mean() - critic(real).mean() + lambda_gp * gradient_penalty(critic, real, fake)
        d_loss.backward()
        opt_d.step()
        meter.update(d_loss.item())
        if i % 5 == 4:
            opt_g.zero_grad()
            g_loss = -critic(gen(torch.randn(real.size(0), gen.z_dim))).mean()
            g_loss.backward()
            opt_g.step()
    return (critic, gen), meter


if __name__ == "__main__":
    print(run(10)[1].avg)
