"""
A (much) reduced version of the improved-diffusion UNet: one down/up level,
residual blocks conditioned on the timestep embedding.
"""

import torch as th
import torch.nn as nn
import torch.nn.functional as F

from .nn import SiLU, conv_nd, linear, normalization, timestep_embedding, zero_module


class ResBlock(nn.Module):
    def __init__(self, channels, emb_channels, out_channels=None, dims=2):
        super().__init__()
        self.out_channels = out_channels or channels
        self.in_layers = nn.Sequential(
            normalization(channels),
            SiLU(),
            conv_nd(dims, channels, self.out_channels, 3, padding=1),
        )
        self.emb_layers = nn.Sequential(SiLU(), linear(emb_channels, self.out_channels))
        self.out_layers = nn.Sequential(
            normalization(self.out_channels),
            SiLU(),
            zero_module(conv_nd(dims, self.out_channels, self.out_channels, 3, padding=1)),
        )
        if self.out_channels == channels:
            self.skip_connection = nn.Identity()
        else:
            self.skip_connection = conv_nd(dims, channels, self.out_channels, 1)

    def forward(self, x, emb):
        h = self.in_layers(x)
        emb_out = self.emb_layers(emb).type(h.dtype)
        h = h + emb_out[..., None, None]
        h = self.out_layers(h)
        return self.skip_connection(x) + h


class UNetModel(nn.Module):
    def __init__(self, in_channels=3, model_channels=16, out_channels=3, channel_mult=(1, 2)):
        super().__init__()
        self.model_channels = model_channels
        time_embed_dim = model_channels * 4
        self.time_embed = nn.Sequential(
            linear(model_channels, time_embed_dim),
            SiLU(),
            linear(time_embed_dim, time_embed_dim),
        )
        ch0, ch1 = model_channels * channel_mult[0], model_channels * channel_mult[1]
        self.inp = conv_nd(2, in_channels, ch0, 3, padding=1)
        self.down = ResBlock(ch0, time_embed_dim, ch1)
        self.mid = ResBlock(ch1, time_embed_dim)
        self.up = ResBlock(ch1 + ch0, time_embed_dim, ch0)
        self.out = nn.Sequential(
            normalization(ch0),
            SiLU(),
            zero_module(conv_nd(2, ch0, out_channels, 3, padding=1)),
        )

    def forward(self, x, timesteps, y=None):
        emb = self.time_embed(timestep_embedding(timesteps, self.model_channels))
        h0 = self.inp(x)
        h1 = self.down(F.avg_pool2d(h0, 2), emb)
        h1 = self.mid(h1, emb)
        h1 = F.interpolate(h1, scale_factor=2, mode="nearest")
        h = self.up(th.cat([h1, h0], dim=1), emb)
        return self.out(h)
