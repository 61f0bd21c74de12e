# Source: https://github.com/akanimax/pro_gan_pytorch/pull/12
# Shape: a GAN discriminator step gets the R1 input-gradient with torch.autograd.grad(create_graph=True) and backwards it inside the D loss, so no differentiable .grad is left on any tensor.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Gen(nn.Module):
    def __init__(self, z=4, d=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z, 16), nn.LeakyReLU(0.2), nn.Linear(16, d))

    def forward(self, z):
        return self.net(z)


class Disc(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 16), nn.Softplus(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class GANModule:
    """Lightning-flavoured: one object owns the nets, optimizers and the two steps."""

    def __init__(self, gamma=5.0):
        self.G, self.D = Gen(), Disc()
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.gamma = gamma

    def discriminator_step(self, real, z):
        self.opt_d.zero_grad()
        real.requires_grad_(True)
        d_real = self.D(real)
        (grad_real,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
        r1 = grad_real.pow(2).sum(1).mean()
        d_fake = self.D(self.G(z).detach())
        loss_d = F.softplus(-d_real).mean() + F.softplus(d_fake).mean() + 0.5 * self.gamma * r1
        loss_d.backward()
        self.opt_d.step()
        return loss_d.item()

    def generator_step(self, z):
        self.opt_g.zero_grad()
        loss_g = F.softplus(-self.D(self.G(z))).mean()
        loss_g.backward()
        self.opt_g.step()
        return loss_g.item()


def make_batches(n):
    g = torch.Generator().manual_seed(9)
    return [(torch.randn(8, 6, generator=g) * 0.5 + 1.0, torch.randn(8, 4, generator=g)) for _ in range(n)]


def run(batches):
    gan = GANModule()
    log = []
    for real, z in batches:
        ld = gan.discriminator_step(real, z)
        lg = gan.generator_step(z)
        log.append((ld, lg))
    return log[-1]


if __name__ == "__main__":
    print(run(make_batches(5)))
