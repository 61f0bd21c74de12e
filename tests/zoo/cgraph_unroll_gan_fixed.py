# Source: https://github.com/MarisaKirisame/unroll_gan/blob/a9075f121261d61d5928df987d70de5d781b86d9/main.py
# Shape: the same program as cgraph_unroll_gan.py with its leak fixed; the look-alikes it keeps must stay silent.
# Verdict: clean
import copy
import math

import torch
import torch.nn as nn


class Config:
    seed = 1
    minibatch_size = 64
    g_inp = 16
    g_hid = 32
    g_out = 2
    d_inp = 2
    d_hid = 32
    d_out = 1
    d_learning_rate = 1e-4
    g_learning_rate = 1e-3
    optim_betas = (0.5, 0.999)
    num_iterations = 10
    log_interval = 5
    d_steps = 1
    g_steps = 1
    unrolled_steps = 3


config = Config()


class gaussian_data_generator:
    """Mixture of 8 gaussians on a ring."""

    def __init__(self, seed, n=8, radius=2.0, std=0.02):
        self.g = torch.Generator().manual_seed(seed)
        self.n, self.std = n, std
        thetas = torch.arange(n) * 2 * math.pi / n
        self.centers = torch.stack([radius * torch.cos(thetas), radius * torch.sin(thetas)], 1)
        self.p = torch.full((n,), 1.0 / n)

    def random_distribution(self):
        p = torch.rand(self.n, generator=self.g)
        self.p = p / p.sum()

    def sample(self, N):
        ith_center = torch.multinomial(self.p, N, replacement=True, generator=self.g)
        return self.centers[ith_center] + self.std * torch.randn(N, 2, generator=self.g)


def noise_sampler(N, z_dim, g):
    return torch.randn(N, z_dim, generator=g)


def make_batches(n, seed=config.seed):
    dset = gaussian_data_generator(seed)
    g = torch.Generator().manual_seed(seed + 1)
    return dset, g


class Generator(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
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
        super().__init__()
        self.map1 = nn.Linear(input_size, hidden_size)
        self.map2 = nn.Linear(hidden_size, hidden_size)
        self.map3 = nn.Linear(hidden_size, output_size)
        self.activation_fn = torch.relu

    def forward(self, x):
        x = self.activation_fn(self.map1(x))
        x = self.activation_fn(self.map2(x))
        return torch.sigmoid(self.map3(x))

    def load(self, backup):
        for m_from, m_to in zip(backup.modules(), self.modules()):
            if isinstance(m_to, nn.Linear):
                m_to.weight.data = m_from.weight.data.clone()
                if m_to.bias is not None:
                    m_to.bias.data = m_from.bias.data.clone()


def reset_grads(module):
    # keep the .grad buffers allocated across steps instead of freeing them every iteration
    for p in module.parameters():
        if p.grad is not None:
            p.grad.data.zero_()


def binary_cross_entropy(x, y):
    loss = -(x.log() * y + (1 - x).log() * (1 - y))
    return loss.mean()


criterion = binary_cross_entropy


def d_loop(G, D, d_optimizer, dset, g):
    reset_grads(D)
    d_real_data = dset.sample(config.minibatch_size)
    d_real_decision = D(d_real_data)
    d_real_error = criterion(d_real_decision, torch.ones_like(d_real_decision))
    d_gen_input = noise_sampler(config.minibatch_size, config.g_inp, g)
    with torch.no_grad():
        d_fake_data = G(d_gen_input)
    d_fake_decision = D(d_fake_data)
    d_fake_error = criterion(d_fake_decision, torch.zeros_like(d_fake_decision))
    d_loss = d_real_error + d_fake_error
    d_loss.backward()
    d_optimizer.step()
    return d_real_error.cpu().item(), d_fake_error.cpu().item()


def d_unrolled_loop(G, D, d_optimizer, dset, g, d_gen_input=None):
    reset_grads(D)
    d_real_data = dset.sample(config.minibatch_size)
    d_real_decision = D(d_real_data)
    d_real_error = criterion(d_real_decision, torch.ones_like(d_real_decision))
    if d_gen_input is None:
        d_gen_input = noise_sampler(config.minibatch_size, config.g_inp, g)
    with torch.no_grad():
        d_fake_data = G(d_gen_input)
    d_fake_decision = D(d_fake_data)
    d_fake_error = criterion(d_fake_decision, torch.zeros_like(d_fake_decision))
    d_loss = d_real_error + d_fake_error
    d_loss.backward()
    d_optimizer.step()
    return d_real_error.cpu().item(), d_fake_error.cpu().item()


def g_loop(G, D, g_optimizer, d_optimizer, dset, g):
    reset_grads(G)
    gen_input = noise_sampler(config.minibatch_size, config.g_inp, g)
    if config.unrolled_steps > 0:
        backup = copy.deepcopy(D)
        for i in range(config.unrolled_steps):
            d_unrolled_loop(G, D, d_optimizer, dset, g, d_gen_input=gen_input)
    g_fake_data = G(gen_input)
    dg_fake_decision = D(g_fake_data)
    g_error = criterion(dg_fake_decision, torch.ones_like(dg_fake_decision))
    g_error.backward()
    g_optimizer.step()
    if config.unrolled_steps > 0:
        D.load(backup)
        del backup
    return g_error.cpu().item()


def g_sample(G, g):
    with torch.no_grad():
        gen_input = noise_sampler(config.minibatch_size, config.g_inp, g)
        return G(gen_input).cpu()


def run(steps):
    torch.manual_seed(config.seed)
    dset, g = make_batches(steps)
    dset.random_distribution()
    G = Generator(config.g_inp, config.g_hid, config.g_out)
    D = Discriminator(config.d_inp, config.d_hid, config.d_out)
    d_optimizer = torch.optim.Adam(D.parameters(), lr=config.d_learning_rate, betas=config.optim_betas)
    g_optimizer = torch.optim.Adam(G.parameters(), lr=config.g_learning_rate, betas=config.optim_betas)
    samples, losses = [], []
    for it in range(steps):
        d_infos = [d_loop(G, D, d_optimizer, dset, g) for _ in range(config.d_steps)]
        g_infos = [g_loop(G, D, g_optimizer, d_optimizer, dset, g) for _ in range(config.g_steps)]
        losses.append((sum(r for r, _ in d_infos) / len(d_infos), sum(f for _, f in d_infos) / len(d_infos),
                       sum(g_infos) / len(g_infos)))
        if it % config.log_interval == 0:
            samples.append(g_sample(G, g))
    return {"G": G, "D": D, "d_optimizer": d_optimizer, "samples": samples, "losses": losses}


if __name__ == "__main__":
    run(10)
