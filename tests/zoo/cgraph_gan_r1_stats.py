# Source: https://github.com/lucaayscough/Gravity/blob/4522c16f3bf9cfd5183550d370fda70626e688f0/Generator/loss.py
# Shape: the lazy R1 penalty (torch.autograd.grad(..., create_graph=True)) is reported to a training-stats collector that appends the live tensor, so every regularisation step's double-backward graph and the real batch stay alive.
# Verdict: leak
import math
from collections import defaultdict
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=16, hidden=64, img=3 * 8 * 8):
        super().__init__()
        self.mapping = nn.Sequential(nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2))
        self.synthesis = nn.Sequential(nn.Linear(hidden, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, img))

    def forward(self, z):
        return torch.tanh(self.synthesis(self.mapping(z))).view(-1, 3, 8, 8)


class Discriminator(nn.Module):
    def __init__(self, hidden=64, img=3 * 8 * 8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(img, hidden), nn.LeakyReLU(0.2),
                                 nn.Linear(hidden, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x.flatten(1))


class TrainingStats:
    """Collects scalars between log intervals and averages them on flush()."""

    def __init__(self):
        self._values = defaultdict(list)

    def report(self, name, value):
        self._values[name].append(value)

    def flush(self):
        out = {k: torch.stack([torch.as_tensor(v).float().mean() for v in vals]).mean().item()
               for k, vals in self._values.items() if vals}
        return out


class Trainer:
    def __init__(self, config):
        self.batch_size = config["batch_size"]
        self.z_dim = config["z_dim"]
        self.r1_gamma = config["r1_gamma"]
        self.d_reg_every = config["d_reg_every"]
        self.netG = Generator(self.z_dim)
        self.netD = Discriminator()
        self.opt_gen = torch.optim.Adam(self.netG.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.opt_dis = torch.optim.Adam(self.netD.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.stats = TrainingStats()

    @staticmethod
    def _set_grad_flag(module, flag):
        for p in module.parameters():
            p.requires_grad = flag

    def _train_discriminator_r1(self, real, idx):
        self._set_grad_flag(self.netD, True)
        self._set_grad_flag(self.netG, False)
        self.netD.zero_grad()

        noise = torch.randn((self.batch_size, self.z_dim))
        fake = self.netG(noise)
        disc_real = F.softplus(-self.netD(real)).mean()
        disc_fake = F.softplus(self.netD(fake)).mean()
        self.loss_disc = disc_real + disc_fake
        self.loss_disc.backward()
        self.stats.report("Loss/D", self.loss_disc.item())

        # R1 (lazy regularisation)
        if idx % self.d_reg_every == 0:
            real.requires_grad = True
            real_logits = self.netD(real)
            grad_real, = torch.autograd.grad(outputs=real_logits.sum(), inputs=real, create_graph=True)
            grad_penalty_real = grad_real.view(grad_real.size(0), -1).pow(2).sum(1).mean()
            grad_penalty_real = self.r1_gamma / 2 * grad_penalty_real
            (grad_penalty_real * self.d_reg_every).backward()
            self.stats.report("Loss/r1_penalty", grad_penalty_real)  # TLK301
        self.opt_dis.step()

    def _train_generator_ns(self):
        self._set_grad_flag(self.netD, False)
        self._set_grad_flag(self.netG, True)
        self.netG.zero_grad()
        noise = torch.randn((self.batch_size, self.z_dim))
        output = self.netD(self.netG(noise))
        self.loss_gen = F.softplus(-output).mean()
        self.loss_gen.backward()
        self.opt_gen.step()
        self.stats.report("Loss/G", self.loss_gen.item())

    def train(self, dataset, batches):
        for idx, index in enumerate(batches):
            real = dataset[index].clone()
            self._train_discriminator_r1(real, idx)
            self._train_generator_ns()
        return self.stats.flush()


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (32,), generator=g) for _ in range(n)]


def run(batches):
    config = {"batch_size": 32, "z_dim": 16, "r1_gamma": 10.0, "d_reg_every": 1}
    dataset = torch.rand(256, 3, 8, 8, generator=torch.Generator().manual_seed(1)) * 2 - 1
    trainer = Trainer(config)
    return trainer.train(dataset, batches)
