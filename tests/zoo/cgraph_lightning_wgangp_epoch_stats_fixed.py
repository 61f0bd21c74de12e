# Source: https://github.com/christophstach/gan-research-project/blob/02f05beef8aca0aee8aef69f0a6922388132e41a/gans/wgan_gp/wgan_gp.py
# Shape: fixed twin: the epoch statistics store gradient_penalty.item(), so the create_graph penalty graph is freed after each critic step.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn as nn


class LightningModule(nn.Module):
    """Single-process stand-in for the parts of pl.LightningModule used here."""

    def __init__(self):
        super().__init__()
        self.automatic_optimization = True
        self._trainer = None
        self._logged = {}

    def optimizers(self):
        return self._trainer.optimizers

    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def log(self, name, value, prog_bar=False):
        self._logged[name] = value.item() if isinstance(value, torch.Tensor) else value


class Trainer:
    def __init__(self):
        self.global_step = 0
        self.optimizers = []

    def fit(self, model, train_dataloader):
        model._trainer = self
        self.optimizers = model.configure_optimizers()
        model.train()
        model.on_train_epoch_start()
        for batch_idx, batch in enumerate(train_dataloader):
            model.training_step(batch, batch_idx)
            self.global_step += 1
        model.on_train_epoch_end()
        return model._logged


class Generator(nn.Module):
    def __init__(self, noise_size=16, y_size=10, image_dim=64):
        super().__init__()
        self.embed = nn.Embedding(y_size, 8)
        self.net = nn.Sequential(nn.Linear(noise_size + 8, 64), nn.ReLU(), nn.Linear(64, image_dim), nn.Tanh())

    def forward(self, z, y):
        return self.net(torch.cat([z, self.embed(y)], dim=1))


class Critic(nn.Module):
    def __init__(self, y_size=10, image_dim=64):
        super().__init__()
        self.embed = nn.Embedding(y_size, 8)
        self.net = nn.Sequential(nn.Linear(image_dim + 8, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64),
                                 nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x, y):
        return self.net(torch.cat([x, self.embed(y)], dim=1))


class WGANGP(LightningModule):
    def __init__(self, noise_size=16, learning_rate=1e-4, gradient_penalty_term=10.0, alternation_interval=5):
        super().__init__()
        self.automatic_optimization = False
        self.noise_size = noise_size
        self.learning_rate = learning_rate
        self.gradient_penalty_term = gradient_penalty_term
        self.alternation_interval = alternation_interval
        self.generator = Generator(noise_size)
        self.critic = Critic()
        self.epoch_stats = defaultdict(list)

    def forward(self, x, y):
        return self.generator(x, y)

    def generator_loss(self, fake_validity):
        return -fake_validity.mean()

    def critic_loss(self, real_validity, fake_validity):
        return fake_validity.mean() - real_validity.mean()

    def gradient_penalty(self, real_images, fake_images, y):
        alpha = torch.rand(real_images.size(0), 1)
        interpolates = (alpha * real_images + (1 - alpha) * fake_images).requires_grad_()
        interpolate_validity = self.critic(interpolates, y)
        gradients = torch.autograd.grad(outputs=interpolate_validity, inputs=interpolates,
                                        grad_outputs=torch.ones_like(interpolate_validity), create_graph=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    def _update_epoch_stats(self, loss, gradient_penalty):
        self.epoch_stats["critic_loss"].append(loss.item())
        self.epoch_stats["gradient_penalty"].append(gradient_penalty.item())

    def training_step_critic(self, real_images, y, opt_c):
        noise = torch.randn(real_images.size(0), self.noise_size)
        fake_images = self.forward(noise, y).detach()
        real_validity = self.critic(real_images, y)
        fake_validity = self.critic(fake_images, y)
        gradient_penalty = self.gradient_penalty_term * self.gradient_penalty(real_images, fake_images, y)
        loss = self.critic_loss(real_validity, fake_validity) + gradient_penalty
        opt_c.zero_grad()
        self.manual_backward(loss)
        opt_c.step()
        self._update_epoch_stats(loss, gradient_penalty)
        self.log("critic_loss", loss, prog_bar=True)

    def training_step_generator(self, real_images, y, opt_g):
        noise = torch.randn(real_images.size(0), self.noise_size)
        loss = self.generator_loss(self.critic(self.forward(noise, y), y))
        opt_g.zero_grad()
        self.manual_backward(loss)
        opt_g.step()
        self.log("generator_loss", loss, prog_bar=True)

    def training_step(self, batch, batch_idx):
        real_images, y = batch
        opt_c, opt_g = self.optimizers()
        self.training_step_critic(real_images, y, opt_c)
        if batch_idx % self.alternation_interval == 0:
            self.training_step_generator(real_images, y, opt_g)

    def on_train_epoch_start(self):
        self.epoch_stats.clear()

    def on_train_epoch_end(self):
        for key, values in self.epoch_stats.items():
            self.log(f"epoch/{key}", float(sum(values) / len(values)))

    def configure_optimizers(self):
        return [torch.optim.Adam(self.critic.parameters(), lr=self.learning_rate, betas=(0.5, 0.999)),
                torch.optim.Adam(self.generator.parameters(), lr=self.learning_rate, betas=(0.5, 0.999))]


def make_batches(n):
    return list(range(n))


def train_dataloader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.rand(32, 64, generator=g) * 2 - 1, torch.randint(0, 10, (32,), generator=g)


def run(batches):
    torch.manual_seed(0)
    model = WGANGP()
    return Trainer().fit(model, train_dataloader(batches))


if __name__ == "__main__":
    print(run(make_batches(6)))
