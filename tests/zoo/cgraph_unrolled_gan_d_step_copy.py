# Source: https://github.com/andrewliao11/unrolled-gans/issues/1
# Shape: each generator step unrolls a copy of D with d_loss.backward(create_graph=True); the copy's params keep .grad tensors whose grad_fn graph points back at the params (param <-> grad reference cycle), so every discarded unrolled D and its double-backward graph stay alive.
# Verdict: leak
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    g_inp = 32
    g_hid = 64
    g_out = 2
    d_inp = g_out
    d_hid = 64
    d_out = 1
    minibatch_size = 256
    unrolled_steps = 3
    d_learning_rate = 1e-4
    g_learning_rate = 1e-3
    optim_betas = (0.5, 0.999)
    d_steps = 1
    g_steps = 1


class Generator(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(Generator, self).__init__()
        self.map1 = nn.Linear(input_size, hidden_size)
        self.map2 = nn.Linear(hidden_size, hidden_size)
        self.map3 = nn.Linear(hidden_size, output_size)
        self.activation_fn = torch.tanh

    def forward(self, x):
        x = self.activation_fn(self.map1(x))
        x = self.activation_fn(self.map2(x))
        return self.map3(x)


class Discriminator(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(Discriminator, self).__init__()
        self.map1 = nn.Linear(input_size, hidden_size)
        self.map2 = nn.Linear(hidden_size, hidden_size)
        self.map3 = nn.Linear(hidden_size, output_size)
        self.activation_fn = F.relu

    def forward(self, x):
        x = self.activation_fn(self.map1(x))
        x = self.activation_fn(self.map2(x))
        return torch.sigmoid(self.map3(x))


class MixtureOfGaussians:
    def __init__(self, n_mixture=8, std=0.02, radius=2.0):
        thetas = torch.arange(n_mixture, dtype=torch.float32) * (2 * math.pi / n_mixture)
        self.centers = torch.stack([radius * torch.sin(thetas), radius * torch.cos(thetas)], dim=1)
        self.std = std

    def sample(self, N, g):
        idx = torch.randint(len(self.centers), (N,), generator=g)
        return self.centers[idx] + self.std * torch.randn(N, 2, generator=g)


def noise_sampler(N, z_dim, g):
    return torch.randn(N, z_dim, generator=g)


class UnrolledGANTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.G = Generator(cfg.g_inp, cfg.g_hid, cfg.g_out)
        self.D = Discriminator(cfg.d_inp, cfg.d_hid, cfg.d_out)
        self.criterion = nn.BCELoss()
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), lr=cfg.d_learning_rate, betas=cfg.optim_betas)
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), lr=cfg.g_learning_rate, betas=cfg.optim_betas)
        self.dset = MixtureOfGaussians()

    def d_loop(self, g):
        # 1. Train D on real+fake
        self.d_optimizer.zero_grad()
        d_real_data = self.dset.sample(self.cfg.minibatch_size, g)
        d_real_decision = self.D(d_real_data)
        d_real_error = self.criterion(d_real_decision, torch.ones_like(d_real_decision))  # ones = true

        d_gen_input = noise_sampler(self.cfg.minibatch_size, self.cfg.g_inp, g)
        with torch.no_grad():
            d_fake_data = self.G(d_gen_input)
        d_fake_decision = self.D(d_fake_data)
        d_fake_error = self.criterion(d_fake_decision, torch.zeros_like(d_fake_decision))  # zeros = fake

        d_loss = d_real_error + d_fake_error
        d_loss.backward()
        self.d_optimizer.step()
        return d_real_error.cpu().item(), d_fake_error.cpu().item()

    def d_unrolled_loop(self, D, d_optimizer, d_gen_input, g):
        # 1. Train the unrolled copy of D on real+fake
        d_optimizer.zero_grad()
        d_real_data = self.dset.sample(self.cfg.minibatch_size, g)
        d_real_decision = D(d_real_data)
        d_real_error = self.criterion(d_real_decision, torch.ones_like(d_real_decision))

        with torch.no_grad():
            d_fake_data = self.G(d_gen_input)
        d_fake_decision = D(d_fake_data)
        d_fake_error = self.criterion(d_fake_decision, torch.zeros_like(d_fake_decision))

        d_loss = d_real_error + d_fake_error
        d_loss.backward(create_graph=True)  # TLK302
        d_optimizer.step()
        return d_real_error.cpu().item(), d_fake_error.cpu().item()

    def g_loop(self, g):
        # 2. Train G on D's response (but DO NOT train D on these labels)
        self.g_optimizer.zero_grad()
        gen_input = noise_sampler(self.cfg.minibatch_size, self.cfg.g_inp, g)

        D = self.D
        if self.cfg.unrolled_steps > 0:
            D = copy.deepcopy(self.D)
            unrolled_optimizer = torch.optim.Adam(D.parameters(), lr=self.cfg.d_learning_rate, betas=self.cfg.optim_betas)
            for i in range(self.cfg.unrolled_steps):
                self.d_unrolled_loop(D, unrolled_optimizer, gen_input, g)

        g_fake_data = self.G(gen_input)
        dg_fake_decision = D(g_fake_data)
        g_error = self.criterion(dg_fake_decision, torch.ones_like(dg_fake_decision))  # we want to fool, so pretend it's all genuine
        g_error.backward()
        self.g_optimizer.step()  # Only optimizes G's parameters
        return g_error.cpu().item()

    def train_step(self, seed):
        g = torch.Generator().manual_seed(seed)
        d_infos = [self.d_loop(g) for _ in range(self.cfg.d_steps)]
        g_infos = [self.g_loop(g) for _ in range(self.cfg.g_steps)]
        return d_infos[-1], g_infos[-1]


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    trainer = UnrolledGANTrainer(Config())
    log = []
    for it, seed in enumerate(batches, 1):
        (d_real_loss, d_fake_loss), g_loss = trainer.train_step(seed)
        log.append((d_real_loss, d_fake_loss, g_loss))
    return log
