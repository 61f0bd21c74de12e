# Source: https://github.com/akanimax/pro_gan_pytorch/pull/12
# Shape: a WGAN-GP discriminator step gets the input gradient for the penalty by calling backward(create_graph=True) on the critic scores and reading .grad of the interpolated images.
# Verdict: clean
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 4 * 4, 1))

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, z=8):
        super().__init__()
        self.fc = nn.Linear(z, 64)

    def forward(self, z):
        return torch.tanh(self.fc(z)).view(-1, 1, 8, 8)


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(4, 1, 8, 8, generator=g) * 2 - 1 for _ in range(n)]


def gradient_penalty(critic, real, fake, reg_lambda=10.0):
    eps = torch.rand(real.size(0), 1, 1, 1)
    merged = (eps * real + (1 - eps) * fake).requires_grad_(True)
    scores = critic(merged)
    grad = torch.autograd.grad(scores, merged, grad_outputs=torch.ones_like(scores), create_graph=True)[0]
    grad = grad.view(grad.size(0), -1)
    return reg_lambda * ((grad.norm(p=2, dim=1) - 1) ** 2).mean()


def run(batches, z_dim=8):
    gen, critic = Generator(z_dim), Critic()
    g_opt = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.99))
    d_opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.99))
    for step, real in enumerate(batches):
        fake = gen(torch.randn(real.size(0), z_dim)).detach()
        d_opt.zero_grad()
        gp = gradient_penalty(critic, real, fake)
        d_loss = critic(fake).mean() - critic(real).mean() + gp
        d_loss.backward()
        d_opt.step()
        if step % 2 == 0:
            g_opt.zero_grad()
            g_loss = -critic(gen(torch.randn(real.size(0), z_dim))).mean()
            g_loss.backward()
            g_opt.step()


if __name__ == "__main__":
    run(make_batches())
