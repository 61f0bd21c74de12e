import torch
from torch import nn

from .dot_product_attention import ScaledDotProductAttention


class MultiHeadSelfAttention(nn.Module):
    """AutoInt interacting layer. With keep_attention=True the per-batch attention maps are
    collected so that a field-interaction heatmap can be drawn after the epoch."""

    def __init__(self, input_dim, attention_dim=None, num_heads=1, dropout_rate=0.,
                 use_residual=True, use_scale=False, layer_norm=False, keep_attention=False):
        super(MultiHeadSelfAttention, self).__init__()
        if attention_dim is None:
            attention_dim = input_dim
        assert attention_dim % num_heads == 0, \
            "attention_dim={} is not divisible by num_heads={}".format(attention_dim, num_heads)
        self.head_dim = attention_dim // num_heads
        self.num_heads = num_heads
        self.use_residual = use_residual
        self.scale = self.head_dim ** 0.5 if use_scale else None
        self.W_q = nn.Linear(input_dim, attention_dim, bias=False)
        self.W_k = nn.Linear(input_dim, attention_dim, bias=False)
        self.W_v = nn.Linear(input_dim, attention_dim, bias=False)
        if self.use_residual and input_dim != attention_dim:
            self.W_res = nn.Linear(input_dim, attention_dim, bias=False)
        else:
            self.W_res = None
        self.dot_attention = ScaledDotProductAttention(dropout_rate)
        self.layer_norm = nn.LayerNorm(attention_dim) if layer_norm else None
        self.keep_attention = keep_attention
        self.attention_maps = []

    def forward(self, X):
        residual = X
        # linear projection
        query = self.W_q(X)
        key = self.W_k(X)
        value = self.W_v(X)
        # split by heads
        batch_size = query.size(0)
        query = query.view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        # scaled dot product attention
        output, attention = self.dot_attention(query, key, value, scale=self.scale)
        if self.keep_attention and self.training:
            self.attention_maps.append(attention)  # known-miss: TLK102
        # concat heads
        output = output.transpose(1, 2).contiguous().view(batch_size, -1, self.num_heads * self.head_dim)
        if self.W_res is not None:
            residual = self.W_res(residual)
        if self.use_residual:
            output += residual
        if self.layer_norm is not None:
            output = self.layer_norm(output)
        output = output.relu()
        return output

    @torch.no_grad()
    def field_interaction_heatmap(self):
        if not self.attention_maps:
            return None
        return torch.cat([a.mean(dim=1) for a in self.attention_maps]).mean(dim=0)

    def reset_attention_maps(self):
        self.attention_maps = []
