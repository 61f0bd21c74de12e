# Source: https://github.com/lucaayscough/Gravity/blob/main/Generator/train.py
# Shape: look-alike: the shadow (EMA) generator is updated with copy_() outside no_grad and the losses sit on self, but the generator's requires_grad is switched off during the copy, the path-length mean is stored with .detach(), the create_graph gradient penalty is backwarded once, and self.loss_* are overwritten every step.
# Verdict: clean
import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=16, w_dim=16, num_ws=3, length=64):
        super().__init__()
        self.num_ws, self.length = num_ws, length
        self.mapping = nn.Sequential(nn.Linear(z_dim, w_dim), nn.LeakyReLU(0.2), nn.Linear(w_dim, w_dim))
        self.to_signal = nn.Linear(w_dim * num_ws, 8 * length)
        self.conv = nn.Conv1d(8, 1, 5, padding=2)

    def forward(self, z, return_w=False):
        w_latents = self.mapping(z).unsqueeze(1).repeat(1, self.num_ws, 1)
        x = self.to_signal(w_latents.flatten(1)).view(-1, 8, self.length)
        sounds = torch.tanh(self.conv(F.leaky_relu(x, 0.2))).unsqueeze(2)  # [B, 1, 1, L]
        return (sounds, w_latents) if return_w else sounds


class Discriminator(nn.Module):
    def __init__(self, length=64):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, 5, padding=2, stride=2)
        self.fc = nn.Linear(8 * length // 2, 1)

    def forward(self, x):
        return self.fc(F.leaky_relu(self.conv(x), 0.2).flatten(1))


class Trainer:
    def __init__(self, z_dim=16, batch_size=8, ema_beta=0.999, pl_decay=0.01, pl_weight=2, pl_batch_shrink=2):
        self.z_dim, self.batch_size = z_dim, batch_size
        self.ema_beta, self.pl_decay, self.pl_weight, self.pl_batch_shrink = ema_beta, pl_decay, pl_weight, pl_batch_shrink
        self.netG, self.netD = Generator(z_dim), Discriminator()
        self.opt_gen = torch.optim.Adam(self.netG.parameters(), lr=2e-3, betas=(0.0, 0.99))
        self.opt_dis = torch.optim.Adam(self.netD.parameters(), lr=2e-3, betas=(0.0, 0.99))
        self.pl_mean = torch.tensor(0, dtype=torch.float32)
        self.netG_shadow = copy.deepcopy(self.netG)
        self._update_average(beta=0)
        self.log = []

    def training_loop(self, dataloader):
        self.netG.requires_grad_(False)
        self.netD.requires_grad_(False)
        for idx, real in enumerate(dataloader):
            self._train_generator_ns(idx)
            self._train_discriminator_wgangp(real)
            self._update_average(beta=self.ema_beta)
            self.log.append(f'Batch {idx} Loss D: {self.loss_disc:8f}, loss G: {self.loss_gen:8f}')

    def _train_generator_ns(self, idx, G_reg=4):
        self.netG.requires_grad_(True)
        noise = torch.randn((self.batch_size, self.z_dim))
        fake = self.netG(noise)
        output = self.netD(fake.squeeze(2))
        self.loss_gen = F.softplus(-output).mean()
        self.loss_gen.backward()
        self.netG.requires_grad_(False)
        self.opt_gen.step()
        self.opt_gen.zero_grad(set_to_none=True)

        # Path-length regularization.
        if idx % G_reg == 0:
            self.netG.requires_grad_(True)
            batch_size = noise.shape[0] // self.pl_batch_shrink
            sounds, w_latents = self.netG(noise[:batch_size], return_w=True)
            pl_noise = torch.randn_like(sounds) / np.sqrt(sounds.shape[2] * sounds.shape[3])
            pl_grads = torch.autograd.grad(outputs=[(sounds * pl_noise).sum()], inputs=[w_latents],
                                           create_graph=True, only_inputs=True)[0]
            pl_lengths = pl_grads.square().sum(2).mean(1).sqrt()
            pl_mean = self.pl_mean.lerp(pl_lengths.mean(), self.pl_decay)
            self.pl_mean.copy_(pl_mean.detach())
            pl_penalty = (pl_lengths - pl_mean).square()
            loss_Gpl = pl_penalty * self.pl_weight
            (sounds[:, 0, 0, 0] * 0 + loss_Gpl).mean().mul(G_reg).backward()
            self.netG.requires_grad_(False)
            self.opt_gen.step()
            self.opt_gen.zero_grad(set_to_none=True)

    def _train_discriminator_wgangp(self, real, gamma=10, drift_gamma=0.001, constraint=1):
        self.netD.requires_grad_(True)
        noise = torch.randn((self.batch_size, self.z_dim))
        fake = self.netG(noise).squeeze(2)
        disc_real = self.netD(real)
        disc_fake = self.netD(fake)
        self.loss_disc = -(disc_real.mean() - disc_fake.mean()) + (drift_gamma * torch.mean(disc_real ** 2))
        self.loss_disc.backward()
        self.netD.requires_grad_(False)
        self.opt_dis.step()
        self.opt_dis.zero_grad(set_to_none=True)

        # Calculate gradient penalty.
        self.netD.requires_grad_(True)
        alpha = torch.empty(real.shape[0]).uniform_().view(-1, *[1] * (real.dim() - 1))
        interpolated_sounds = torch.lerp(real, fake, alpha).requires_grad_(True)
        mixed_scores = self.netD(interpolated_sounds)
        gradient = torch.autograd.grad(mixed_scores.sum(), interpolated_sounds, only_inputs=True,
                                       create_graph=True, retain_graph=True)[0]
        gradient_norm = gradient.view(gradient.size(0), -1).norm(2, dim=1)
        gradient_penalty = ((gradient_norm - constraint) ** 2).mean() * gamma
        gradient_penalty.backward()
        self.netD.requires_grad_(False)
        self.opt_dis.step()
        self.opt_dis.zero_grad(set_to_none=True)

    def _update_average(self, beta):
        self._set_grad_flag(self.netG_shadow, False)
        self._set_grad_flag(self.netG, False)
        param_dict_src = dict(self.netG.named_parameters())
        for p_name, p_tgt in self.netG_shadow.named_parameters():
            p_src = param_dict_src[p_name]
            assert p_src is not p_tgt
            p_tgt.copy_(beta * p_tgt + (1. - beta) * p_src)
        # turn back on the gradient calculation
        self._set_grad_flag(self.netG_shadow, True)
        self._set_grad_flag(self.netG, True)

    def _set_grad_flag(self, module, flag):
        for p in module.parameters():
            p.requires_grad = flag


def make_batches(n, batch_size=8, length=64):
    g = torch.Generator().manual_seed(0)
    t = torch.linspace(0, 2 * math.pi, length)
    return [torch.sin(t * (1 + torch.rand(batch_size, 1, 1, generator=g) * 4)) for _ in range(n)]


def run(steps):
    torch.manual_seed(0)
    np.random.seed(0)
    trainer = Trainer()
    trainer.training_loop(make_batches(steps))
    return trainer
