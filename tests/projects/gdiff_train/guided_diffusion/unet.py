import torch as th
import torch.nn as nn

from .nn import (
    SiLU,
    conv_nd,
    linear,
    normalization,
    timestep_embedding,
    zero_module,
)


class TimestepBlock(nn.Module):
    """
    Any module where forward() takes timestep embeddings as a second argument.
    """

    def forward(self, x, emb):
        raise NotImplementedError


class TimestepEmbedSequential(nn.Sequential, TimestepBlock):
    def forward(self, x, emb):
        for layer in self:
            if isinstance(layer, TimestepBlock):
                x = layer(x, emb)
            else:
                x = layer(x)
        return x


class ResBlock(TimestepBlock):
    """
    A residual block that can optionally change the number of channels.
    """

    def __init__(self, channels, emb_channels, dropout, out_channels=None, dims=2):
        super().__init__()
        self.channels = channels
        self.out_channels = out_channels or channels
        self.in_layers = nn.Sequential(
            normalization(channels),
            SiLU(),
            conv_nd(dims, channels, self.out_channels, 3, padding=1),
        )
        self.emb_layers = nn.Sequential(
            SiLU(),
            linear(emb_channels, self.out_channels),
        )
        self.out_layers = nn.Sequential(
            normalization(self.out_channels),
            SiLU(),
            nn.Dropout(p=dropout),
            zero_module(conv_nd(dims, self.out_channels, self.out_channels, 3, padding=1)),
        )
        if self.out_channels == channels:
            self.skip_connection = nn.Identity()
        else:
            self.skip_connection = conv_nd(dims, channels, self.out_channels, 1)

    def forward(self, x, emb):
        h = self.in_layers(x)
        emb_out = self.emb_layers(emb).type(h.dtype)
        while len(emb_out.shape) < len(h.shape):
            emb_out = emb_out[..., None]
        h = h + emb_out
        h = self.out_layers(h)
        return self.skip_connection(x) + h


class UNetModel(nn.Module):
    """
    A (very) small UNet-like denoiser with timestep embedding.

    The model keeps a running RMS of the middle-block activations
    (``feature_rms``); the training loop logs it every step.
    """

    def __init__(
        self,
        in_channels,
        model_channels,
        out_channels,
        num_res_blocks,
        dropout=0.0,
        dims=2,
        rms_momentum=0.99,
    ):
        super().__init__()
        self.in_channels = in_channels
        self.model_channels = model_channels
        self.out_channels = out_channels
        self.rms_momentum = rms_momentum

        time_embed_dim = model_channels * 4
        self.time_embed = nn.Sequential(
            linear(model_channels, time_embed_dim),
            SiLU(),
            linear(time_embed_dim, time_embed_dim),
        )

        self.input_blocks = nn.ModuleList(
            [TimestepEmbedSequential(conv_nd(dims, in_channels, model_channels, 3, padding=1))]
        )
        for _ in range(num_res_blocks):
            self.input_blocks.append(
                TimestepEmbedSequential(
                    ResBlock(model_channels, time_embed_dim, dropout, dims=dims)
                )
            )
        self.middle_block = TimestepEmbedSequential(
            ResBlock(model_channels, time_embed_dim, dropout, dims=dims),
        )
        self.out = nn.Sequential(
            normalization(model_channels),
            SiLU(),
            zero_module(conv_nd(dims, model_channels, out_channels, 3, padding=1)),
        )
        self.feature_rms = th.ones(())

    def forward(self, x, timesteps, y=None):
        emb = self.time_embed(timestep_embedding(timesteps, self.model_channels))
        h = x
        for module in self.input_blocks:
            h = module(h, emb)
        h = self.middle_block(h, emb)
        if self.training:
            batch_rms = h.pow(2).mean().sqrt()
            self.feature_rms = self.rms_momentum * self.feature_rms + (1 - self.rms_momentum) * batch_rms  # expect: TLK103
        return self.out(h)
