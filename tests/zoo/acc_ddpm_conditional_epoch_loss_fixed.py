# Source: https://github.com/dome272/Diffusion-Models-pytorch/blob/main/ddpm_conditional.py
# Shape: one_epoch() sums the detached MSE loss into avg_loss, so the epoch total is a plain tensor with no history and each step graph is freed after backward.
# Verdict: clean
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class EMA:
    def __init__(self, beta):
        self.beta = beta
        self.step = 0

    def update_model_average(self, ma_model, current_model):
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            old_weight, up_weight = ma_params.data, current_params.data
            ma_params.data = self.update_average(old_weight, up_weight)

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new

    def step_ema(self, ema_model, model, step_start_ema=2000):
        if self.step < step_start_ema:
            self.reset_parameters(ema_model, model)
            self.step += 1
            return
        self.update_model_average(ema_model, model)
        self.step += 1

    def reset_parameters(self, ema_model, model):
        ema_model.load_state_dict(model.state_dict())


class TinyUNetConditional(nn.Module):
    """A very small stand-in for UNet_conditional: conv encoder, time + label embedding, conv decoder."""

    def __init__(self, c_in=3, c_out=3, time_dim=32, num_classes=10):
        super().__init__()
        self.time_dim = time_dim
        self.inc = nn.Conv2d(c_in, 16, 3, padding=1)
        self.down = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.emb = nn.Linear(time_dim, 32)
        self.up = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)
        self.outc = nn.Conv2d(32, c_out, 1)
        self.label_emb = nn.Embedding(num_classes, time_dim)

    def pos_encoding(self, t, channels):
        inv_freq = 1.0 / (10000 ** (torch.arange(0, channels, 2, device=t.device).float() / channels))
        pos_enc_a = torch.sin(t.repeat(1, channels // 2) * inv_freq)
        pos_enc_b = torch.cos(t.repeat(1, channels // 2) * inv_freq)
        return torch.cat([pos_enc_a, pos_enc_b], dim=-1)

    def forward(self, x, t, y):
        t = t.unsqueeze(-1).float()
        t = self.pos_encoding(t, self.time_dim)
        if y is not None:
            t = t + self.label_emb(y)
        x1 = F.silu(self.inc(x))
        x2 = F.silu(self.down(x1)) + self.emb(t)[:, :, None, None]
        x3 = F.silu(self.up(x2))
        return self.outc(torch.cat([x1, x3], dim=1))


class Diffusion:
    def __init__(self, noise_steps=1000, beta_start=1e-4, beta_end=0.02, img_size=16, num_classes=10, device="cpu"):
        self.noise_steps = noise_steps
        self.beta_start = beta_start
        self.beta_end = beta_end

        self.beta = self.prepare_noise_schedule().to(device)
        self.alpha = 1. - self.beta
        self.alpha_hat = torch.cumprod(self.alpha, dim=0)

        self.img_size = img_size
        self.model = TinyUNetConditional(num_classes=num_classes).to(device)
        self.ema_model = copy.deepcopy(self.model).eval().requires_grad_(False)
        self.device = device

    def prepare_noise_schedule(self):
        return torch.linspace(self.beta_start, self.beta_end, self.noise_steps)

    def noise_images(self, x, t):
        sqrt_alpha_hat = torch.sqrt(self.alpha_hat[t])[:, None, None, None]
        sqrt_one_minus_alpha_hat = torch.sqrt(1 - self.alpha_hat[t])[:, None, None, None]
        eps = torch.randn_like(x)
        return sqrt_alpha_hat * x + sqrt_one_minus_alpha_hat * eps, eps

    def sample_timesteps(self, n):
        return torch.randint(low=1, high=self.noise_steps, size=(n,))

    def one_epoch(self, train=True):
        avg_loss = 0.
        if train:
            self.model.train()
        else:
            self.model.eval()
        for i, (images, labels) in enumerate(self.train_dataloader):
            with (torch.inference_mode() if not train else torch.enable_grad()):
                images = images.to(self.device)
                labels = labels.to(self.device)
                t = self.sample_timesteps(images.shape[0]).to(self.device)
                x_t, noise = self.noise_images(images, t)
                if np.random.random() < 0.1:
                    labels = None
                predicted_noise = self.model(x_t, t, labels)
                loss = self.mse(noise, predicted_noise)
                avg_loss += loss.detach()
                if train:
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    self.scheduler.step()
                    self.ema.step_ema(self.ema_model, self.model, step_start_ema=5)
        self.last_epoch_loss = avg_loss
        return avg_loss.mean().item()

    def fit(self, batches, lr=3e-4):
        self.train_dataloader = batches
        self.optimizer = optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.001)
        self.scheduler = optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=lr,
                                                       steps_per_epoch=len(batches), epochs=1)
        self.mse = nn.MSELoss()
        self.ema = EMA(0.995)
        return self.one_epoch(train=True)


def make_batches(n, batch_size=4, img_size=16, num_classes=10):
    g = torch.Generator().manual_seed(0)
    return [(torch.rand(batch_size, 3, img_size, img_size, generator=g) * 2 - 1,
             torch.randint(0, num_classes, (batch_size,), generator=g)) for _ in range(n)]


def run(steps):
    np.random.seed(0)
    diffuser = Diffusion(noise_steps=100, img_size=16)
    diffuser.fit(make_batches(steps))
    diffuser.train_dataloader = None  # the synthetic data is not part of what we keep
    return diffuser
