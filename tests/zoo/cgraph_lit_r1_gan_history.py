# Source: https://github.com/seungjunlee96/lightning-generative-models/pull/14
# Shape: the R1 penalty is built from torch.autograd.grad(..., create_graph=True) every step but only added to the loss on lazy-regularization steps; it is appended to self.r1_history for epoch-end logging, so each step's double-backward graph (and, on non-regularized steps, the saved discriminator activations) stays alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModuleStub(nn.Module):
    def __init__(self):
        super().__init__()
        self.logged_metrics = {}
        self.automatic_optimization = True
        self._optimizers = None

    def log(self, name, value, prog_bar=False):
        self.logged_metrics[name] = float(value)

    def optimizers(self):
        return self._optimizers

    def manual_backward(self, loss):
        loss.backward()


class Generator(nn.Module):
    def __init__(self, latent_dim=32, img_dim=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 128), nn.LeakyReLU(0.2), nn.Linear(128, 256), nn.LeakyReLU(0.2), nn.Linear(256, img_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(img_dim, 256), nn.LeakyReLU(0.2), nn.Linear(256, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x)


class R1GAN(LightningModuleStub):
    def __init__(self, latent_dim=32, img_dim=256, r1_gamma=10.0, r1_every=4, lr=2e-4):
        super().__init__()
        self.automatic_optimization = False
        self.latent_dim = latent_dim
        self.generator = Generator(latent_dim, img_dim)
        self.discriminator = Discriminator(img_dim)
        self.r1_gamma = r1_gamma
        self.r1_every = r1_every
        self.lr = lr
        self.r1_history = []

    def r1_penalty(self, real_imgs, real_logits):
        grad_real, = torch.autograd.grad(outputs=real_logits.sum(), inputs=real_imgs, create_graph=True)
        return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()
        z = torch.randn(batch.shape[0], self.latent_dim)

        # discriminator
        real_imgs = batch.detach().requires_grad_(True)
        real_logits = self.discriminator(real_imgs)
        fake_imgs = self.generator(z)
        fake_logits = self.discriminator(fake_imgs.detach())
        d_loss = F.softplus(fake_logits).mean() + F.softplus(-real_logits).mean()
        r1 = self.r1_penalty(real_imgs, real_logits)
        self.r1_history.append(r1)  # TLK301
        if batch_idx % self.r1_every == 0:
            d_loss = d_loss + (self.r1_gamma / 2) * r1 * self.r1_every
        d_opt.zero_grad()
        self.manual_backward(d_loss)
        d_opt.step()

        # generator
        g_loss = F.softplus(-self.discriminator(fake_imgs)).mean()
        g_opt.zero_grad()
        self.manual_backward(g_loss)
        g_opt.step()
        self.log("d_loss", d_loss.item(), prog_bar=True)
        self.log("g_loss", g_loss.item(), prog_bar=True)

    def on_train_epoch_end(self):
        self.log("r1_epoch", torch.stack(self.r1_history).mean().item())
        self.r1_history.clear()

    def configure_optimizers(self):
        g_opt = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=(0.0, 0.99))
        d_opt = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.0, 0.99))
        return g_opt, d_opt


def fit(module, batches, limit_train_batches=1000):
    module._optimizers = module.configure_optimizers()
    for batch_idx, batch in enumerate(batches):
        module.training_step(batch, batch_idx)
        if (batch_idx + 1) % limit_train_batches == 0:
            module.on_train_epoch_end()
    return module.logged_metrics


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.rand(32, 256, generator=g) * 2 - 1 for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = R1GAN()
    metrics = fit(model, batches)
    return metrics["d_loss"] + metrics["g_loss"]


if __name__ == "__main__":
    print(run(make_batches(5)))
