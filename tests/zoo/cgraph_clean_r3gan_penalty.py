# Source: https://github.com/brownvc/R3GAN/issues/20
# Shape: looks like a leak (R1/R2 zero-centred penalties built with torch.autograd.grad(create_graph=True) and a loss dict kept on the trainer), but the penalties are part of the loss that is backwarded each step and only .item() values are logged or kept.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.LeakyReLU(0.2), nn.Linear(h, h), nn.LeakyReLU(0.2), nn.Linear(h, o))


class AdversarialTraining:
    def __init__(self, generator, discriminator):
        self.Generator = generator
        self.Discriminator = discriminator

    @staticmethod
    def ZeroCenteredGradientPenalty(samples, critics):
        gradient, = torch.autograd.grad(outputs=critics.sum(), inputs=samples, create_graph=True)
        return gradient.square().sum([1])

    def AccumulateGeneratorGradients(self, noise, real_samples, scale=1):
        fake_samples = self.Generator(noise)
        real_samples = real_samples.detach()
        fake_logits = self.Discriminator(fake_samples)
        real_logits = self.Discriminator(real_samples)
        relativistic_logits = fake_logits - real_logits
        adversarial_loss = F.softplus(-relativistic_logits)
        (scale * adversarial_loss.mean()).backward()
        return [x.detach() for x in [adversarial_loss, relativistic_logits]]

    def AccumulateDiscriminatorGradients(self, noise, real_samples, gamma, scale=1):
        real_samples = real_samples.detach().requires_grad_(True)
        fake_samples = self.Generator(noise).detach().requires_grad_(True)
        real_logits = self.Discriminator(real_samples)
        fake_logits = self.Discriminator(fake_samples)
        r1_penalty = self.ZeroCenteredGradientPenalty(real_samples, real_logits)
        r2_penalty = self.ZeroCenteredGradientPenalty(fake_samples, fake_logits)
        relativistic_logits = real_logits - fake_logits
        adversarial_loss = F.softplus(-relativistic_logits)
        discriminator_loss = adversarial_loss + (gamma / 2) * (r1_penalty + r2_penalty)
        (scale * discriminator_loss.mean()).backward()
        return [x.detach() for x in [adversarial_loss, relativistic_logits, r1_penalty, r2_penalty]]


class Trainer:
    def __init__(self, z_dim=16, data_dim=48):
        self.z_dim = z_dim
        self.G, self.D = mlp(z_dim, 64, data_dim), mlp(data_dim, 64, 1)
        self.opt_G = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.opt_D = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.0, 0.99))
        self.algo = AdversarialTraining(self.G, self.D)
        self.loss_dict = {}
        self.history = {"r1": [], "r2": [], "g_adv": []}

    def step(self, real, gamma=1.0):
        noise = torch.randn(real.shape[0], self.z_dim)
        self.D.requires_grad_(True)
        self.opt_D.zero_grad(set_to_none=True)
        d_adv, d_rel, r1, r2 = self.algo.AccumulateDiscriminatorGradients(noise, real, gamma)
        self.opt_D.step()

        self.D.requires_grad_(False)
        self.opt_G.zero_grad(set_to_none=True)
        g_adv, g_rel = self.algo.AccumulateGeneratorGradients(noise, real)
        self.opt_G.step()

        self.loss_dict = {"d_adv": d_adv.mean(), "r1": r1.mean(), "r2": r2.mean(), "g_adv": g_adv.mean()}
        self.history["r1"].append(self.loss_dict["r1"].item())
        self.history["r2"].append(self.loss_dict["r2"].item())
        self.history["g_adv"].append(self.loss_dict["g_adv"].item())


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (32,), generator=g) for _ in range(n)]


def run(batches):
    data = torch.randn(256, 48, generator=torch.Generator().manual_seed(1))
    trainer = Trainer()
    for idx in batches:
        trainer.step(data[idx])
    return {k: sum(v) / len(v) for k, v in trainer.history.items()}
