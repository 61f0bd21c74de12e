# Source: https://github.com/andrewliao11/unrolled-gans/blob/master/unrolled_gan.ipynb
# Shape: fixed twin: the look-ahead steps use a plain d_loss.backward(); the optimizer step on the copy runs under no_grad anyway, so create_graph never carried G's gradient through the unroll, and without it the copy's grads hold no graph and the copy is freed after each generator step.
# Verdict: clean
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class data_generator(object):
    """Mixture of 8 Gaussians on a ring (mixture_gaussian.py), torch version."""

    def __init__(self, seed=0):
        n = 8
        radius = 2
        std = 0.02
        delta_theta = 2 * math.pi / n
        centers_x, centers_y = [], []
        for i in range(n):
            centers_x.append(radius * math.cos(i * delta_theta))
            centers_y.append(radius * math.sin(i * delta_theta))
        self.centers = torch.tensor([centers_x, centers_y]).T
        self.std = std
        self.size = 2
        self.n = n
        self.p = torch.full((n,), 1.0 / n)
        self.g = torch.Generator().manual_seed(seed)

    def random_distribution(self, p=None):
        if p is None:
            p = torch.rand(self.n, generator=self.g)
        self.p = p / p.sum()

    def uniform_distribution(self):
        self.p = torch.full((self.n,), 1.0 / self.n)

    def sample(self, N):
        ith_center = torch.multinomial(self.p, N, replacement=True, generator=self.g)
        sample_centers = self.centers[ith_center]
        return sample_centers + torch.randn(N, 2, generator=self.g) * self.std


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


class UnrolledGan:
    def __init__(self, dset, unrolled_steps=5, minibatch_size=256, seed=0):
        self.dset = dset
        self.z_dim = 64
        self.g_inp, self.g_hid, self.g_out = self.z_dim, 128, dset.size
        self.d_inp, self.d_hid, self.d_out = self.g_out, 128, 1
        self.minibatch_size = minibatch_size
        self.unrolled_steps = unrolled_steps
        self.d_learning_rate = 1e-4
        self.g_learning_rate = 1e-3
        self.optim_betas = (0.5, 0.999)
        self.d_steps = 1
        self.g_steps = 1
        self.noise_gen = torch.Generator().manual_seed(seed + 1)

        self.G = Generator(input_size=self.g_inp, hidden_size=self.g_hid, output_size=self.g_out)
        self.D = Discriminator(input_size=self.d_inp, hidden_size=self.d_hid, output_size=self.d_out)
        self.criterion = nn.BCELoss()
        self.d_optimizer = optim.Adam(self.D.parameters(), lr=self.d_learning_rate, betas=self.optim_betas)
        self.g_optimizer = optim.Adam(self.G.parameters(), lr=self.g_learning_rate, betas=self.optim_betas)

    def noise_sampler(self, N, z_dim):
        return torch.randn(N, z_dim, generator=self.noise_gen)

    def d_loop(self):
        # 1. Train D on real+fake
        self.d_optimizer.zero_grad()

        #  1A: Train D on real
        d_real_data = self.dset.sample(self.minibatch_size)
        d_real_decision = self.D(d_real_data)
        target = torch.ones_like(d_real_decision)
        d_real_error = self.criterion(d_real_decision, target)  # ones = true

        #  1B: Train D on fake
        d_gen_input = self.noise_sampler(self.minibatch_size, self.g_inp)
        with torch.no_grad():
            d_fake_data = self.G(d_gen_input)
        d_fake_decision = self.D(d_fake_data)
        target = torch.zeros_like(d_fake_decision)
        d_fake_error = self.criterion(d_fake_decision, target)  # zeros = fake

        d_loss = d_real_error + d_fake_error
        d_loss.backward()
        self.d_optimizer.step()  # Only optimizes D's parameters; changes based on stored gradients from backward()
        return d_real_error.cpu().item(), d_fake_error.cpu().item()

    def d_unrolled_loop(self, d_unrolled, d_unrolled_optimizer, d_gen_input=None):
        # 1. Train the scratch copy of D on real+fake
        d_unrolled_optimizer.zero_grad()

        #  1A: Train D on real
        d_real_data = self.dset.sample(self.minibatch_size)
        d_real_decision = d_unrolled(d_real_data)
        target = torch.ones_like(d_real_decision)
        d_real_error = self.criterion(d_real_decision, target)  # ones = true

        #  1B: Train D on fake
        if d_gen_input is None:
            d_gen_input = self.noise_sampler(self.minibatch_size, self.g_inp)
        with torch.no_grad():
            d_fake_data = self.G(d_gen_input)
        d_fake_decision = d_unrolled(d_fake_data)
        target = torch.zeros_like(d_fake_decision)
        d_fake_error = self.criterion(d_fake_decision, target)  # zeros = fake

        d_loss = d_real_error + d_fake_error
        d_loss.backward()
        d_unrolled_optimizer.step()
        return d_real_error.cpu().item(), d_fake_error.cpu().item()

    def unroll_discriminator(self, gen_input):
        """Look-ahead copy of D, trained `unrolled_steps` times; D itself is left untouched."""
        d_unrolled = copy.deepcopy(self.D)
        d_unrolled_optimizer = optim.Adam(d_unrolled.parameters(), lr=self.d_learning_rate, betas=self.optim_betas)
        d_unrolled_optimizer.load_state_dict(self.d_optimizer.state_dict())
        for i in range(self.unrolled_steps):
            self.d_unrolled_loop(d_unrolled, d_unrolled_optimizer, d_gen_input=gen_input)
        return d_unrolled

    def g_loop(self):
        # 2. Train G on D's response (but DO NOT train D on these labels)
        self.g_optimizer.zero_grad()

        gen_input = self.noise_sampler(self.minibatch_size, self.g_inp)
        critic = self.unroll_discriminator(gen_input) if self.unrolled_steps > 0 else self.D

        g_fake_data = self.G(gen_input)
        dg_fake_decision = critic(g_fake_data)
        target = torch.ones_like(dg_fake_decision)
        g_error = self.criterion(dg_fake_decision, target)  # we want to fool, so pretend it's all genuine
        g_error.backward()
        self.g_optimizer.step()  # Only optimizes G's parameters
        return g_error.cpu().item()

    def g_sample(self):
        with torch.no_grad():
            gen_input = self.noise_sampler(self.minibatch_size, self.g_inp)
            return self.G(gen_input)

    def train(self, num_iterations, log_interval=300):
        samples, history = [], []
        for it in range(num_iterations):
            d_infos = []
            for d_index in range(self.d_steps):
                d_infos.append(self.d_loop())
            d_real_loss = sum(d[0] for d in d_infos) / len(d_infos)
            d_fake_loss = sum(d[1] for d in d_infos) / len(d_infos)

            g_infos = []
            for g_index in range(self.g_steps):
                g_infos.append(self.g_loop())
            g_loss = sum(g_infos) / len(g_infos)
            history.append((d_real_loss, d_fake_loss, g_loss))

            if it % log_interval == 0:
                samples.append(self.g_sample())
        return samples, history


def make_batches(seed=0):
    dset = data_generator(seed=seed)
    dset.uniform_distribution()
    return dset


def run(steps):
    torch.manual_seed(0)
    gan = UnrolledGan(make_batches(seed=0), unrolled_steps=5)
    samples, history = gan.train(num_iterations=steps)
    return {"gan": gan, "samples": samples, "history": history}


if __name__ == "__main__":
    run(10)
