"""Network helpers and a small noise-prediction network (a stand-in for the UNet)."""
import math

import torch as th
import torch.nn as nn


def mean_flat(tensor):
    """Take the mean over all non-batch dimensions."""
    return tensor.mean(dim=list(range(1, len(tensor.shape))))


def update_ema(target_params, source_params, rate=0.99):
    """Update target parameters to be closer to those of source parameters using an EMA."""
    for targ, src in zip(target_params, source_params):
        targ.mul_(rate).add_(src, alpha=1 - rate)


def zero_grad(model_params):
    for param in model_params:
        if param.grad is not None:
            param.grad.detach_()
            param.grad.zero_()


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = th.exp(-math.log(max_period) * th.arange(half, dtype=th.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    return th.cat([th.cos(args), th.sin(args)], dim=-1)


class TinyUNet(nn.Module):
    def __init__(self, in_channels=3, model_channels=16, time_dim=16):
        super().__init__()
        self.time_dim = time_dim
        self.time_embed = nn.Sequential(nn.Linear(time_dim, model_channels), nn.SiLU(), nn.Linear(model_channels, model_channels))
        self.inp = nn.Conv2d(in_channels, model_channels, 3, padding=1)
        self.mid = nn.Conv2d(model_channels, model_channels, 3, padding=1)
        self.out = nn.Conv2d(model_channels, in_channels, 3, padding=1)

    def forward(self, x, timesteps):
        emb = self.time_embed(timestep_embedding(timesteps, self.time_dim))
        h = th.nn.functional.silu(self.inp(x) + emb[:, :, None, None])
        h = th.nn.functional.silu(self.mid(h))
        return self.out(h)
