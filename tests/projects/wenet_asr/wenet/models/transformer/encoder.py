"""Encoder definition (wenet/models/transformer/encoder.py + subsampling.py, trimmed)."""
from typing import Tuple

import torch
from torch import nn

from wenet.models.transformer.attention import (MultiHeadedAttention,
                                                PositionalEncoding,
                                                PositionwiseFeedForward)
from wenet.utils.common import make_pad_mask


class LinearNoSubsampling(nn.Module):

    def __init__(self, idim: int, odim: int, dropout_rate: float,
                 pos_enc_class: nn.Module):
        super().__init__()
        self.out = nn.Sequential(
            nn.Linear(idim, odim),
            nn.LayerNorm(odim, eps=1e-5),
            nn.Dropout(dropout_rate),
        )
        self.pos_enc = pos_enc_class
        self.subsampling_rate = 1

    def forward(self, x, x_mask, offset: int = 0):
        x = self.out(x)
        x, pos_emb = self.pos_enc(x, offset)
        return x, pos_emb, x_mask


class TransformerEncoderLayer(nn.Module):

    def __init__(self, size: int, self_attn: nn.Module,
                 feed_forward: nn.Module, dropout_rate: float,
                 normalize_before: bool = True):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.norm1 = nn.LayerNorm(size, eps=1e-5)
        self.norm2 = nn.LayerNorm(size, eps=1e-5)
        self.dropout = nn.Dropout(dropout_rate)
        self.size = size
        self.normalize_before = normalize_before

    def forward(self, x, mask, pos_emb):
        residual = x
        if self.normalize_before:
            x = self.norm1(x)
        x_att = self.self_attn(x, x, x, mask)
        x = residual + self.dropout(x_att)
        if not self.normalize_before:
            x = self.norm1(x)

        residual = x
        if self.normalize_before:
            x = self.norm2(x)
        x = residual + self.dropout(self.feed_forward(x))
        if not self.normalize_before:
            x = self.norm2(x)
        return x, mask


class TransformerEncoder(nn.Module):

    def __init__(self, input_size: int, output_size: int = 256,
                 attention_heads: int = 4, linear_units: int = 2048,
                 num_blocks: int = 6, dropout_rate: float = 0.1,
                 normalize_before: bool = True):
        super().__init__()
        self._output_size = output_size
        self.embed = LinearNoSubsampling(
            input_size, output_size, dropout_rate,
            PositionalEncoding(output_size, dropout_rate))
        self.normalize_before = normalize_before
        self.after_norm = nn.LayerNorm(output_size, eps=1e-5)
        self.encoders = nn.ModuleList([
            TransformerEncoderLayer(
                output_size,
                MultiHeadedAttention(attention_heads, output_size,
                                     dropout_rate),
                PositionwiseFeedForward(output_size, linear_units,
                                        dropout_rate), dropout_rate,
                normalize_before) for _ in range(num_blocks)
        ])

    def output_size(self) -> int:
        return self._output_size

    def forward(self, xs: torch.Tensor,
                xs_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        T = xs.size(1)
        masks = ~make_pad_mask(xs_lens, T).unsqueeze(1)  # (B, 1, T)
        xs, pos_emb, masks = self.embed(xs, masks)
        for layer in self.encoders:
            xs, masks = layer(xs, masks, pos_emb)
        if self.normalize_before:
            xs = self.after_norm(xs)
        return xs, masks
