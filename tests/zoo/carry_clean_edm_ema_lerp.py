# Source: https://github.com/NVlabs/edm/blob/008a4e5316c8e3bfe61a62f874bddba254295afb/training/training_loop.py
# Shape: the EMA network is a requires_grad_(False) deepcopy updated with p_ema.copy_(p_net.detach().lerp(p_ema, beta)), and training_stats.report detaches before accumulating, so neither the EMA weights nor the stats collector hold any graph.
# Verdict: clean
import copy
import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class training_stats:
    """Minimal stand-in for torch_utils.training_stats: accumulates moments of reported values."""

    _moments = defaultdict(lambda: torch.zeros(3, dtype=torch.float64))

    @classmethod
    def report(cls, name, value):
        elems = torch.as_tensor(value).detach().flatten().to(torch.float64)
        moments = torch.stack([torch.ones_like(elems).sum(), elems.sum(), elems.square().sum()])
        cls._moments[name].add_(moments)
        return value

    @classmethod
    def mean(cls, name):
        m = cls._moments[name]
        return (m[1] / m[0].clamp(min=1)).item()

    @classmethod
    def reset(cls):
        cls._moments.clear()


class EDMPrecond(nn.Module):
    def __init__(self, img_channels=3, hidden=32, sigma_data=0.5):
        super().__init__()
        self.sigma_data = sigma_data
        self.img_channels = img_channels
        self.net = nn.Sequential(
            nn.Conv2d(img_channels + 1, hidden, 3, padding=1), nn.SiLU(),
            nn.Conv2d(hidden, hidden, 3, padding=1), nn.SiLU(),
            nn.Conv2d(hidden, img_channels, 3, padding=1))

    def forward(self, x, sigma):
        sigma = sigma.reshape(-1, 1, 1, 1)
        c_skip = self.sigma_data ** 2 / (sigma ** 2 + self.sigma_data ** 2)
        c_out = sigma * self.sigma_data / (sigma ** 2 + self.sigma_data ** 2).sqrt()
        c_in = 1 / (self.sigma_data ** 2 + sigma ** 2).sqrt()
        c_noise = sigma.log() / 4
        h = torch.cat([c_in * x, c_noise.expand(-1, 1, x.shape[2], x.shape[3])], dim=1)
        return c_skip * x + c_out * self.net(h)


class EDMLoss:
    def __init__(self, P_mean=-1.2, P_std=1.2, sigma_data=0.5):
        self.P_mean = P_mean
        self.P_std = P_std
        self.sigma_data = sigma_data

    def __call__(self, net, images):
        rnd_normal = torch.randn([images.shape[0], 1, 1, 1])
        sigma = (rnd_normal * self.P_std + self.P_mean).exp()
        weight = (sigma ** 2 + self.sigma_data ** 2) / (sigma * self.sigma_data) ** 2
        n = torch.randn_like(images) * sigma
        D_yn = net(images + n, sigma)
        return weight * ((D_yn - images) ** 2)


class ImageFolderDataset:
    def __init__(self, size=128, res=8):
        g = torch.Generator().manual_seed(2)
        self.images = torch.randint(0, 256, (size, 3, res, res), generator=g, dtype=torch.uint8)


def training_loop(batches, batch_size=8, lr=1e-3, ema_halflife_kimg=0.5, ema_rampup_ratio=0.05,
                  lr_rampup_kimg=0.1, loss_scaling=1):
    dataset = ImageFolderDataset()
    net = EDMPrecond()
    net.train().requires_grad_(True)
    loss_fn = EDMLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    ema = copy.deepcopy(net).eval().requires_grad_(False)
    training_stats.reset()

    cur_nimg = 0
    for idx in batches:
        optimizer.zero_grad(set_to_none=True)
        images = dataset.images[idx].to(torch.float32) / 127.5 - 1
        loss = loss_fn(net=net, images=images)
        training_stats.report('Loss/loss', loss)
        loss.sum().mul(loss_scaling / batch_size).backward()

        for g in optimizer.param_groups:
            g['lr'] = lr * min(cur_nimg / max(lr_rampup_kimg * 1000, 1e-8), 1)
        for param in net.parameters():
            if param.grad is not None:
                torch.nan_to_num(param.grad, nan=0, posinf=1e5, neginf=-1e5, out=param.grad)
        optimizer.step()

        # Update EMA.
        ema_halflife_nimg = ema_halflife_kimg * 1000
        if ema_rampup_ratio is not None:
            ema_halflife_nimg = min(ema_halflife_nimg, cur_nimg * ema_rampup_ratio)
        ema_beta = 0.5 ** (batch_size / max(ema_halflife_nimg, 1e-8))
        for p_ema, p_net in zip(ema.parameters(), net.parameters()):
            p_ema.copy_(p_net.detach().lerp(p_ema, ema_beta))
        cur_nimg += batch_size
    return ema, training_stats.mean('Loss/loss')


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 128, (8,)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    return training_loop(batches)
