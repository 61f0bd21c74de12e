# Source: https://github.com/LMescheder/GAN_stability/blob/master/gan_training/train.py
# Shape: the R1 regulariser is logged as a Python float (.item()), so no double-backward graph or x_real leaf is kept by the logger.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn as nn
from torch import autograd
from torch.nn import functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=16, out_dim=64, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, out_dim))

    def forward(self, z, y=None):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim=64, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, hidden),
                                 nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def forward(self, x, y=None):
        return self.net(x)


def toogle_grad(model, requires_grad):
    for p in model.parameters():
        p.requires_grad_(requires_grad)


def compute_grad2(d_out, x_in):
    batch_size = x_in.size(0)
    grad_dout = autograd.grad(
        outputs=d_out.sum(), inputs=x_in,
        create_graph=True, retain_graph=True, only_inputs=True
    )[0]
    grad_dout2 = grad_dout.pow(2)
    assert grad_dout2.size() == x_in.size()
    reg = grad_dout2.view(batch_size, -1).sum(1)
    return reg


class Logger(object):
    def __init__(self):
        self.stats = defaultdict(lambda: defaultdict(list))

    def add(self, category, k, v, it):
        self.stats[category][k].append((it, v))

    def get_last(self, category, k, default=0.):
        if not self.stats[category][k]:
            return default
        return self.stats[category][k][-1][1]


class Trainer(object):
    def __init__(self, generator, discriminator, g_optimizer, d_optimizer, gan_type='standard', reg_param=10.):
        self.generator = generator
        self.discriminator = discriminator
        self.g_optimizer = g_optimizer
        self.d_optimizer = d_optimizer
        self.gan_type = gan_type
        self.reg_param = reg_param

    def generator_trainstep(self, z):
        toogle_grad(self.generator, True)
        toogle_grad(self.discriminator, False)
        self.g_optimizer.zero_grad()
        x_fake = self.generator(z)
        d_fake = self.discriminator(x_fake)
        gloss = self.compute_loss(d_fake, 1)
        gloss.backward()
        self.g_optimizer.step()
        return gloss.item()

    def discriminator_trainstep(self, x_real, z):
        toogle_grad(self.generator, False)
        toogle_grad(self.discriminator, True)
        self.d_optimizer.zero_grad()

        # On real data (R1 regulariser on the real samples)
        x_real.requires_grad_()
        d_real = self.discriminator(x_real)
        dloss_real = self.compute_loss(d_real, 1)
        dloss_real.backward(retain_graph=True)
        reg = self.reg_param * compute_grad2(d_real, x_real).mean()
        reg.backward()

        # On fake data
        with torch.no_grad():
            x_fake = self.generator(z)
        x_fake.requires_grad_()
        d_fake = self.discriminator(x_fake)
        dloss_fake = self.compute_loss(d_fake, 0)
        dloss_fake.backward()

        self.d_optimizer.step()
        toogle_grad(self.discriminator, False)

        dloss = (dloss_real + dloss_fake)
        return dloss.item(), reg

    def compute_loss(self, d_out, target):
        targets = d_out.new_full(size=d_out.size(), fill_value=target)
        if self.gan_type == 'standard':
            return F.binary_cross_entropy_with_logits(d_out, targets)
        return (2 * target - 1) * d_out.mean()


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 512, (32,)).tolist() for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    dataset = torch.randn(512, 64) * 0.5 + 1.0
    generator, discriminator = Generator(), Discriminator()
    g_optimizer = torch.optim.RMSprop(generator.parameters(), lr=1e-4)
    d_optimizer = torch.optim.RMSprop(discriminator.parameters(), lr=1e-4)
    trainer = Trainer(generator, discriminator, g_optimizer, d_optimizer, reg_param=10.)
    logger = Logger()
    for it, idx in enumerate(batches):
        x_real = dataset[idx]
        z = torch.randn(len(idx), 16)
        dloss, reg = trainer.discriminator_trainstep(x_real, z)
        logger.add('losses', 'discriminator', dloss, it=it)
        logger.add('losses', 'regularizer', reg.item(), it=it)
        gloss = trainer.generator_trainstep(z)
        logger.add('losses', 'generator', gloss, it=it)
    return logger.get_last('losses', 'generator')
