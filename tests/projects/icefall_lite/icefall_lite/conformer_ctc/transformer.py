# Modelled on egs/librispeech/ASR/conformer_ctc/transformer.py
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

from icefall_lite.utils import make_pad_mask

from .label_smoothing import LabelSmoothingLoss
from .subsampling import Conv2dSubsampling

Supervisions = Dict[str, torch.Tensor]


class Transformer(nn.Module):
    def __init__(self, num_features: int, num_classes: int, subsampling_factor: int = 4,
                 d_model: int = 32, nhead: int = 2, dim_feedforward: int = 64,
                 num_encoder_layers: int = 2, num_decoder_layers: int = 1, dropout: float = 0.1,
                 use_feat_batchnorm: bool = False) -> None:
        super().__init__()
        self.use_feat_batchnorm = use_feat_batchnorm
        if use_feat_batchnorm:
            self.feat_batchnorm = nn.BatchNorm1d(num_features)

        self.num_features = num_features
        self.num_classes = num_classes
        self.subsampling_factor = subsampling_factor
        if subsampling_factor != 4:
            raise NotImplementedError("Support only 'subsampling_factor=4'.")

        self.encoder_embed = Conv2dSubsampling(num_features, d_model)
        self.encoder_pos = PositionalEncoding(d_model, dropout)
        self.build_encoder(d_model, nhead, dim_feedforward, num_encoder_layers, dropout)

        # TODO(fangjun): remove dropout
        self.encoder_output_layer = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(d_model, num_classes))

        if num_decoder_layers > 0:
            self.decoder_num_class = self.num_classes
            self.decoder_embed = nn.Embedding(num_embeddings=self.decoder_num_class, embedding_dim=d_model)
            self.decoder_pos = PositionalEncoding(d_model, dropout)
            decoder_layer = nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout)
            self.decoder = nn.TransformerDecoder(decoder_layer, num_decoder_layers, norm=nn.LayerNorm(d_model))
            self.decoder_output_layer = torch.nn.Linear(d_model, self.decoder_num_class)
            self.decoder_criterion = LabelSmoothingLoss()
        else:
            self.decoder_criterion = None

    def build_encoder(self, d_model, nhead, dim_feedforward, num_encoder_layers, dropout):
        encoder_layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout)
        self.encoder = nn.TransformerEncoder(encoder_layer, num_encoder_layers, norm=nn.LayerNorm(d_model),
                                             enable_nested_tensor=False)

    def forward(self, x: torch.Tensor, supervision: Optional[Supervisions] = None
                ) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
        if self.use_feat_batchnorm:
            x = x.permute(0, 2, 1)  # (N, T, C) -> (N, C, T)
            x = self.feat_batchnorm(x)
            x = x.permute(0, 2, 1)  # (N, C, T) -> (N, T, C)
        encoder_memory, memory_key_padding_mask = self.run_encoder(x, supervision)
        x = self.ctc_output(encoder_memory)
        return x, encoder_memory, memory_key_padding_mask

    def run_encoder(self, x: torch.Tensor, supervisions: Optional[Supervisions] = None):
        x = self.encoder_embed(x)
        x = self.encoder_pos(x)
        x = x.permute(1, 0, 2)  # (N, T, C) -> (T, N, C)
        mask = encoder_padding_mask(x.size(0), supervisions)
        x = self.encoder(x, src_key_padding_mask=mask)  # (T, N, C)
        return x, mask

    def ctc_output(self, x: torch.Tensor) -> torch.Tensor:
        x = self.encoder_output_layer(x)
        x = x.permute(1, 0, 2)  # (T, N, C) ->(N, T, C)
        x = nn.functional.log_softmax(x, dim=-1)  # (N, T, C)
        return x

    def decoder_forward(self, memory: torch.Tensor, memory_key_padding_mask: torch.Tensor,
                        token_ids: List[List[int]], sos_id: int, eos_id: int) -> torch.Tensor:
        ys_in = add_sos(token_ids, sos_id=sos_id)
        ys_in = [torch.tensor(y) for y in ys_in]
        ys_in_pad = pad_sequence(ys_in, batch_first=True, padding_value=float(eos_id))

        ys_out = add_eos(token_ids, eos_id=eos_id)
        ys_out = [torch.tensor(y) for y in ys_out]
        ys_out_pad = pad_sequence(ys_out, batch_first=True, padding_value=float(-1))

        device = memory.device
        ys_in_pad = ys_in_pad.to(device)
        ys_out_pad = ys_out_pad.to(device)

        tgt_mask = generate_square_subsequent_mask(ys_in_pad.shape[-1]).to(device)
        tgt_key_padding_mask = decoder_padding_mask(ys_in_pad, ignore_id=eos_id)
        # We set the first column to False since the first column in ys_in_pad
        # contains sos_id, which is the same as eos_id in our current setting.
        tgt_key_padding_mask[:, 0] = False

        tgt = self.decoder_embed(ys_in_pad)  # (N, T) -> (N, T, C)
        tgt = self.decoder_pos(tgt)
        tgt = tgt.permute(1, 0, 2)  # (N, T, C) -> (T, N, C)
        pred_pad = self.decoder(
            tgt=tgt,
            memory=memory,
            tgt_mask=tgt_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
        )  # (T, N, C)
        pred_pad = pred_pad.permute(1, 0, 2)  # (T, N, C) -> (N, T, C)
        pred_pad = self.decoder_output_layer(pred_pad)  # (N, T, C)

        decoder_loss = self.decoder_criterion(pred_pad, ys_out_pad)
        return decoder_loss


def encoder_padding_mask(max_len: int, supervisions: Optional[Supervisions] = None) -> Optional[torch.Tensor]:
    """Make mask tensor containing indexes of padded part (True = padding)."""
    if supervisions is None:
        return None
    lengths = ((supervisions["num_frames"] - 1) // 2 - 1) // 2
    return make_pad_mask(lengths.long(), max_len)


def decoder_padding_mask(ys_pad: torch.Tensor, ignore_id: int = -1) -> torch.Tensor:
    return ys_pad == ignore_id


def generate_square_subsequent_mask(sz: int) -> torch.Tensor:
    mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
    return mask


def add_sos(token_ids: List[List[int]], sos_id: int) -> List[List[int]]:
    return [[sos_id] + utt for utt in token_ids]


def add_eos(token_ids: List[List[int]], eos_id: int) -> List[List[int]]:
    return [utt + [eos_id] for utt in token_ids]


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 256) -> None:
        super().__init__()
        self.d_model = d_model
        self.xscale = d_model ** 0.5
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(torch.log(torch.tensor(10000.0)) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.xscale + self.pe[:, : x.size(1), :]
        return self.dropout(x)
