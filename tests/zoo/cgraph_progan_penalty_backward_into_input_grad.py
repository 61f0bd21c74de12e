# Source: https://github.com/akanimax/pro_gan_pytorch/pull/12
# Shape: a progressive GAN's WGAN-GP loss object computes the gradient penalty by calling backward(create_graph=True) on the critic's output at the interpolated images and reading the interpolates' .grad; the trainer's zero_grad only resets the critic's parameters, so the interpolates' differentiable .grad keeps a reference cycle with its graph and each step's double-backward graph is never freed (fixed upstream with autograd.grad).
# Verdict: leak
import torch
import torch.nn as nn


class WGAN_GP:
    def __init__(self, dis, drift=0.001):
        self.dis = dis
        self.drift = drift

    def gradient_penalty(self, real_samps, fake_samps, depth, alpha, reg_lambda=10):
        batch_size = real_samps.shape[0]
        epsilon = torch.rand((batch_size, 1, 1, 1))
        merged = (epsilon * real_samps + (1 - epsilon) * fake_samps).detach().requires_grad_(True)
        op = self.dis(merged, depth, alpha)
        op.backward(torch.ones_like(op), create_graph=True)  # TLK302
        gradient = merged.grad.view(batch_size, -1)
        return reg_lambda * ((gradient.norm(p=2, dim=1) - 1) ** 2).mean()

    def dis_loss(self, real_samps, fake_samps, depth, alpha):
        fake_out = self.dis(fake_samps, depth, alpha)
        real_out = self.dis(real_samps, depth, alpha)
        loss = fake_out.mean() - real_out.mean() + self.drift * (real_out ** 2).mean()
        return loss + self.gradient_penalty(real_samps, fake_samps, depth, alpha)

    def gen_loss(self, fake_samps, depth, alpha):
        return -self.dis(fake_samps, depth, alpha).mean()


class ProGANTrainer:
    def __init__(self, gen, dis, latent_size=512, lr=1e-3):
        self.gen = gen
        self.dis = dis
        self.latent_size = latent_size
        self.gen_optim = torch.optim.Adam(gen.parameters(), lr=lr, betas=(0, 0.99))
        self.dis_optim = torch.optim.Adam(dis.parameters(), lr=lr, betas=(0, 0.99))
        self.loss = WGAN_GP(dis)

    def optimize_discriminator(self, noise, real_batch, depth, alpha):
        fake = self.gen(noise, depth, alpha).detach()
        loss = self.loss.dis_loss(real_batch, fake, depth, alpha)
        self.dis_optim.zero_grad()
        loss.backward()
        self.dis_optim.step()
        return loss.item()

    def optimize_generator(self, noise, depth, alpha):
        loss = self.loss.gen_loss(self.gen(noise, depth, alpha), depth, alpha)
        self.gen_optim.zero_grad()
        loss.backward()
        self.gen_optim.step()
        return loss.item()

    def train(self, loader, depth, alpha):
        log = []
        for real in loader:
            noise = torch.randn(real.size(0), self.latent_size)
            d = self.optimize_discriminator(noise, real, depth, alpha)
            g = self.optimize_generator(noise, depth, alpha)
            log.append((d, g))
        return log
