# Modelled on egs/librispeech/ASR/conformer_ctc/conformer.py (macaron FFN + MHSA + conv module)
import torch
from torch import Tensor, nn

from .transformer import Transformer


class ConvolutionModule(nn.Module):
    def __init__(self, channels: int, kernel_size: int = 7, bias: bool = True) -> None:
        super().__init__()
        assert (kernel_size - 1) % 2 == 0
        self.pointwise_conv1 = nn.Conv1d(channels, 2 * channels, kernel_size=1, bias=bias)
        self.depthwise_conv = nn.Conv1d(channels, channels, kernel_size, padding=(kernel_size - 1) // 2,
                                        groups=channels, bias=bias)
        self.norm = nn.BatchNorm1d(channels)
        self.pointwise_conv2 = nn.Conv1d(channels, channels, kernel_size=1, bias=bias)
        self.activation = nn.SiLU()

    def forward(self, x: Tensor) -> Tensor:
        # exchange the temporal dimension and the feature dimension
        x = x.permute(1, 2, 0)  # (#batch, channels, time).
        x = self.pointwise_conv1(x)  # (batch, 2*channels, time)
        x = nn.functional.glu(x, dim=1)  # (batch, channels, time)
        x = self.depthwise_conv(x)
        x = self.activation(self.norm(x))
        x = self.pointwise_conv2(x)  # (batch, channel, time)
        return x.permute(2, 0, 1)


class ConformerEncoderLayer(nn.Module):
    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 64, dropout: float = 0.1,
                 cnn_module_kernel: int = 7, normalize_before: bool = True) -> None:
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, dim_feedforward), nn.SiLU(), nn.Dropout(dropout),
                                          nn.Linear(dim_feedforward, d_model))
        self.feed_forward_macaron = nn.Sequential(nn.Linear(d_model, dim_feedforward), nn.SiLU(),
                                                  nn.Dropout(dropout), nn.Linear(dim_feedforward, d_model))
        self.conv_module = ConvolutionModule(d_model, cnn_module_kernel)
        self.norm_ff_macaron = nn.LayerNorm(d_model)
        self.norm_ff = nn.LayerNorm(d_model)
        self.norm_mha = nn.LayerNorm(d_model)
        self.ff_scale = 0.5
        self.norm_conv = nn.LayerNorm(d_model)
        self.norm_final = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.normalize_before = normalize_before

    def forward(self, src: Tensor, src_mask=None, src_key_padding_mask=None, is_causal=False) -> Tensor:
        # macaron style feed forward module
        residual = src
        src = self.norm_ff_macaron(src)
        src = residual + self.ff_scale * self.dropout(self.feed_forward_macaron(src))

        # multi-headed self-attention module
        residual = src
        src = self.norm_mha(src)
        src_att = self.self_attn(src, src, src, attn_mask=src_mask, key_padding_mask=src_key_padding_mask,
                                 need_weights=False)[0]
        src = residual + self.dropout(src_att)

        # convolution module
        residual = src
        src = self.norm_conv(src)
        src = residual + self.dropout(self.conv_module(src))

        # feed forward module
        residual = src
        src = self.norm_ff(src)
        src = residual + self.ff_scale * self.dropout(self.feed_forward(src))

        return self.norm_final(src)


class ConformerEncoder(nn.Module):
    def __init__(self, encoder_layer_fn, num_layers: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList([encoder_layer_fn() for _ in range(num_layers)])
        self.num_layers = num_layers

    def forward(self, src: Tensor, src_key_padding_mask=None) -> Tensor:
        output = src
        for mod in self.layers:
            output = mod(output, src_key_padding_mask=src_key_padding_mask)
        return output


class Conformer(Transformer):
    def __init__(self, num_features: int, num_classes: int, subsampling_factor: int = 4, d_model: int = 32,
                 nhead: int = 2, dim_feedforward: int = 64, num_encoder_layers: int = 2,
                 num_decoder_layers: int = 1, dropout: float = 0.1, cnn_module_kernel: int = 7,
                 use_feat_batchnorm: bool = False) -> None:
        self.cnn_module_kernel = cnn_module_kernel
        super(Conformer, self).__init__(
            num_features=num_features, num_classes=num_classes, subsampling_factor=subsampling_factor,
            d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
            num_encoder_layers=num_encoder_layers, num_decoder_layers=num_decoder_layers,
            dropout=dropout, use_feat_batchnorm=use_feat_batchnorm,
        )

    def build_encoder(self, d_model, nhead, dim_feedforward, num_encoder_layers, dropout):
        kernel = self.cnn_module_kernel
        self.encoder = ConformerEncoder(
            lambda: ConformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, kernel),
            num_encoder_layers,
        )
