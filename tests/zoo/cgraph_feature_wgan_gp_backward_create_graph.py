# Source: https://github.com/pytorch/pytorch/issues/4661
# Shape: A feature-space WGAN-GP gets the input gradient for its penalty via critic(...).sum().backward(create_graph=True), leaving graph-carrying .grad on the interpolated input (a reference cycle) and on a pretrained encoder that no optimizer zeroes.
# Verdict: leak
import torch
import torch.nn as nn


class PretrainedEncoder(nn.Module):
    """Stand-in for a pretrained feature extractor the critic reads through."""

    def __init__(self, dim=16, feat=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, feat), nn.Tanh(), nn.Linear(feat, feat), nn.Tanh())

    def forward(self, x):
        return self.body(x)


class Critic(nn.Module):
    def __init__(self, encoder, feat=32):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Sequential(nn.Linear(feat, feat), nn.LeakyReLU(0.2), nn.Linear(feat, 1))

    def forward(self, x):
        return self.head(self.encoder(x))


class Generator(nn.Module):
    def __init__(self, z_dim=8, dim=16, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, z):
        return self.net(z)


def gradient_penalty(critic, real, fake):
    eps = torch.rand(real.shape[0], 1)
    interp = (eps * real + (1 - eps) * fake).requires_grad_(True)
    critic(interp).sum().backward(create_graph=True)  # TLK302
    grad = interp.grad
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


class WGANGP:
    def __init__(self, z_dim=8, dim=16, gp_weight=10.0, n_critic=2):
        self.z_dim = z_dim
        self.gp_weight = gp_weight
        self.n_critic = n_critic
        self.encoder = PretrainedEncoder(dim)
        self.critic = Critic(self.encoder)
        self.gen = Generator(z_dim, dim)
        self.d_opt = torch.optim.Adam(self.critic.head.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.g_opt = torch.optim.Adam(self.gen.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.log = {"d": [], "g": [], "gp": []}

    def train_step(self, real):
        for _ in range(self.n_critic):
            z = torch.randn(real.shape[0], self.z_dim)
            fake = self.gen(z).detach()
            self.d_opt.zero_grad()
            gp = gradient_penalty(self.critic, real, fake)
            d_loss = self.critic(fake).mean() - self.critic(real).mean() + self.gp_weight * gp
            d_loss.backward()
            self.d_opt.step()
        self.g_opt.zero_grad()
        g_loss = -self.critic(self.gen(torch.randn(real.shape[0], self.z_dim))).mean()
        g_loss.backward()
        self.g_opt.step()
        self.log["d"].append(d_loss.item())
        self.log["g"].append(g_loss.item())
        self.log["gp"].append(gp.item())

    def fit(self, loader):
        for real in loader:
            self.train_step(real)
        return self.log


def make_batches(n=24, seed=0, bs=32, dim=16):
    g = torch.Generator().manual_seed(seed)
    basis = torch.randn(3, dim, generator=g)
    return [torch.randn(bs, 3, generator=g) @ basis for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    gan = WGANGP()
    log = gan.fit(batches)
    print(f"d {log['d'][-1]:.3f} g {log['g'][-1]:.3f} gp {log['gp'][-1]:.3f}")
    return log


if __name__ == "__main__":
    run(make_batches())
