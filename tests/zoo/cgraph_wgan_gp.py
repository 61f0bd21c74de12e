# Source: https://github.com/Zeleni9/pytorch-wgan/blob/21f929be859b8fabdd36e4d4cbc4411cca7944ec/models/wgan_gradient_penalty.py
# Shape: The critic's input gradients come from autograd.grad(create_graph=True); besides the penalty (backwarded in the same step, fine) the per-sample gradient norms are appended to a monitoring list without detach, so every critic iteration's norm node (saving the full gradient tensor and its double-backward history) is kept for the whole run.
# Verdict: leak
import time as t
from collections import defaultdict

import torch
import torch.nn as nn
from torch import autograd


class Args:
    batch_size = 8
    generator_iters = 10
    channels = 1
    img = 8
    latent = 16


def make_batches(n_images=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    base = torch.linspace(-1, 1, Args.img)
    imgs = []
    for _ in range(n_images):
        phase = torch.rand(1, generator=g) * 3.14
        imgs.append(torch.sin(base[None, :] * 3 + phase + base[:, None]).unsqueeze(0))
    images = torch.stack(imgs)
    labels = torch.zeros(n_images, dtype=torch.long)
    return [(images[i:i + Args.batch_size], labels[i:i + Args.batch_size])
            for i in range(0, n_images, Args.batch_size)]


class Generator(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.main_module = nn.Sequential(
            nn.ConvTranspose2d(Args.latent, 32, 4, 1, 0), nn.BatchNorm2d(32), nn.ReLU(True),
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU(True),
            nn.Conv2d(16, channels, 3, 1, 1))
        self.output = nn.Tanh()

    def forward(self, x):
        return self.output(self.main_module(x))


class Discriminator(nn.Module):
    def __init__(self, channels):
        super().__init__()
        # no batch norm in the critic for WGAN-GP (instance norm is fine)
        self.main_module = nn.Sequential(
            nn.Conv2d(channels, 16, 4, 2, 1), nn.InstanceNorm2d(16, affine=True), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(16, 32, 4, 2, 1), nn.InstanceNorm2d(32, affine=True), nn.LeakyReLU(0.2, inplace=True))
        self.output = nn.Conv2d(32, 1, 2, 1, 0)

    def forward(self, x):
        return self.output(self.main_module(x))


class Logger:
    """Replacement for utils/tensorboard_logger.Logger: keeps scalar history in memory."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.history = defaultdict(list)

    def scalar_summary(self, tag, value, step):
        self.history[tag].append((step, value))


class WGAN_GP:
    def __init__(self, args):
        self.G = Generator(args.channels)
        self.D = Discriminator(args.channels)
        self.C = args.channels
        self.learning_rate = 1e-4
        self.b1, self.b2 = 0.5, 0.999
        self.batch_size = args.batch_size
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), lr=self.learning_rate, betas=(self.b1, self.b2))
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), lr=self.learning_rate, betas=(self.b1, self.b2))
        self.logger = Logger("./logs")
        self.generator_iters = args.generator_iters
        self.critic_iter = 5
        self.lambda_term = 10
        self.log_every = 1
        self.critic_grad_norms = []   # per-sample ||grad_x D(x_hat)||, to monitor the Lipschitz constraint

    def get_infinite_batches(self, data_loader):
        while True:
            for i, (images, _) in enumerate(data_loader):
                yield images

    def calculate_gradient_penalty(self, real_images, fake_images):
        eta = torch.empty(self.batch_size, 1, 1, 1).uniform_(0, 1)
        eta = eta.expand(self.batch_size, real_images.size(1), real_images.size(2), real_images.size(3))
        interpolated = eta * real_images + ((1 - eta) * fake_images)
        interpolated.requires_grad_(True)
        prob_interpolated = self.D(interpolated)
        gradients = autograd.grad(outputs=prob_interpolated, inputs=interpolated,
                                  grad_outputs=torch.ones(prob_interpolated.size()),
                                  create_graph=True, retain_graph=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        self.critic_grad_norms.append(gradients.norm(2, dim=1))  # TLK301
        grad_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * self.lambda_term
        return grad_penalty

    def train(self, train_loader):
        self.t_begin = t.time()
        self.data = self.get_infinite_batches(train_loader)
        one = torch.tensor(1.0)
        mone = one * -1

        for g_iter in range(self.generator_iters):
            for p in self.D.parameters():
                p.requires_grad = True

            for d_iter in range(self.critic_iter):
                self.D.zero_grad()
                images = self.data.__next__()
                if images.size()[0] != self.batch_size:
                    continue

                d_loss_real = self.D(images).mean()
                d_loss_real.backward(mone)

                z = torch.randn(self.batch_size, Args.latent, 1, 1)
                fake_images = self.G(z)
                d_loss_fake = self.D(fake_images.detach()).mean()
                d_loss_fake.backward(one)

                gradient_penalty = self.calculate_gradient_penalty(images.data, fake_images.data)
                gradient_penalty.backward()

                d_loss = d_loss_fake - d_loss_real + gradient_penalty
                Wasserstein_D = d_loss_real - d_loss_fake
                self.d_optimizer.step()

            for p in self.D.parameters():
                p.requires_grad = False

            self.G.zero_grad()
            z = torch.randn(self.batch_size, Args.latent, 1, 1)
            fake_images = self.G(z)
            g_loss = self.D(fake_images).mean()
            g_loss.backward(mone)
            g_cost = -g_loss
            self.g_optimizer.step()

            if g_iter % self.log_every == 0:
                info = {
                    "Wasserstein distance": Wasserstein_D.item(),
                    "Loss D": d_loss.item(),
                    "Loss G": g_cost.item(),
                    "Loss D Real": d_loss_real.item(),
                    "Loss D Fake": d_loss_fake.item(),
                }
                for tag, value in info.items():
                    self.logger.scalar_summary(tag, value, g_iter + 1)
        self.t_end = t.time()
        return self


def run(steps):
    """`steps` generator iterations (each with 5 critic iterations)."""
    torch.manual_seed(0)
    args = Args()
    args.generator_iters = steps
    model = WGAN_GP(args)
    return model.train(make_batches())


if __name__ == "__main__":
    run(10)
