import math
from typing import Tuple

import torch

from espnet2mini.asr.decoder.abs_decoder import AbsDecoder
from espnet2mini.nets.nets_utils import make_pad_mask


class TransformerDecoder(AbsDecoder):
    def __init__(
        self,
        vocab_size: int,
        encoder_output_size: int,
        attention_heads: int = 4,
        linear_units: int = 2048,
        num_blocks: int = 6,
        dropout_rate: float = 0.1,
    ):
        super().__init__()
        attention_dim = encoder_output_size
        self.embed = torch.nn.Embedding(vocab_size, attention_dim)
        self.scale = math.sqrt(attention_dim)
        self.decoders = torch.nn.ModuleList(
            [
                torch.nn.TransformerDecoderLayer(
                    attention_dim, attention_heads, linear_units, dropout_rate, batch_first=True
                )
                for _ in range(num_blocks)
            ]
        )
        self.after_norm = torch.nn.LayerNorm(attention_dim)
        self.output_layer = torch.nn.Linear(attention_dim, vocab_size)

    def forward(
        self,
        hs_pad: torch.Tensor,
        hlens: torch.Tensor,
        ys_in_pad: torch.Tensor,
        ys_in_lens: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        L = ys_in_pad.size(1)
        tgt_mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        tgt_pad = make_pad_mask(ys_in_lens, maxlen=L)
        mem_pad = make_pad_mask(hlens, maxlen=hs_pad.size(1))
        x = self.embed(ys_in_pad) * self.scale
        for layer in self.decoders:
            x = layer(x, hs_pad, tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_pad,
                      memory_key_padding_mask=mem_pad)
        x = self.output_layer(self.after_norm(x))
        return x, ys_in_lens
