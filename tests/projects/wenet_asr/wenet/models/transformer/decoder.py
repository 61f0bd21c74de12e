"""Decoder definition (wenet/models/transformer/decoder.py + decoder_layer.py, trimmed)."""
from typing import Tuple

import torch
from torch import nn

from wenet.models.transformer.attention import (MultiHeadedAttention,
                                                PositionalEncoding,
                                                PositionwiseFeedForward)
from wenet.utils.common import make_pad_mask, subsequent_mask


class DecoderLayer(nn.Module):

    def __init__(self, size, self_attn, src_attn, feed_forward, dropout_rate,
                 normalize_before: bool = True):
        super().__init__()
        self.size = size
        self.self_attn = self_attn
        self.src_attn = src_attn
        self.feed_forward = feed_forward
        self.norm1 = nn.LayerNorm(size, eps=1e-5)
        self.norm2 = nn.LayerNorm(size, eps=1e-5)
        self.norm3 = nn.LayerNorm(size, eps=1e-5)
        self.dropout = nn.Dropout(dropout_rate)
        self.normalize_before = normalize_before

    def forward(self, tgt, tgt_mask, memory, memory_mask):
        residual = tgt
        tgt = self.norm1(tgt)
        x = residual + self.dropout(self.self_attn(tgt, tgt, tgt, tgt_mask))
        residual = x
        x = self.norm2(x)
        x = residual + self.dropout(self.src_attn(x, memory, memory,
                                                  memory_mask))
        residual = x
        x = self.norm3(x)
        x = residual + self.dropout(self.feed_forward(x))
        return x, tgt_mask, memory, memory_mask


class TransformerDecoder(nn.Module):

    def __init__(self, vocab_size: int, encoder_output_size: int,
                 attention_heads: int = 4, linear_units: int = 2048,
                 num_blocks: int = 6, dropout_rate: float = 0.1):
        super().__init__()
        attention_dim = encoder_output_size
        self.embed = nn.Sequential(
            nn.Embedding(vocab_size, attention_dim),
            PositionalEncoding(attention_dim, dropout_rate),
        )
        self.after_norm = nn.LayerNorm(attention_dim, eps=1e-5)
        self.output_layer = nn.Linear(attention_dim, vocab_size)
        self.decoders = nn.ModuleList([
            DecoderLayer(
                attention_dim,
                MultiHeadedAttention(attention_heads, attention_dim,
                                     dropout_rate),
                MultiHeadedAttention(attention_heads, attention_dim,
                                     dropout_rate),
                PositionwiseFeedForward(attention_dim, linear_units,
                                        dropout_rate),
                dropout_rate,
            ) for _ in range(num_blocks)
        ])

    def forward(self, memory, memory_mask, ys_in_pad,
                ys_in_lens) -> Tuple[torch.Tensor, torch.Tensor]:
        tgt = ys_in_pad
        maxlen = tgt.size(1)
        tgt_mask = ~make_pad_mask(ys_in_lens, maxlen).unsqueeze(1)
        m = subsequent_mask(tgt_mask.size(-1)).unsqueeze(0)
        tgt_mask = tgt_mask & m
        x, _ = self.embed(tgt)
        for layer in self.decoders:
            x, tgt_mask, memory, memory_mask = layer(x, tgt_mask, memory,
                                                     memory_mask)
        x = self.after_norm(x)
        x = self.output_layer(x)
        olens = tgt_mask.sum(1)
        return x, olens
