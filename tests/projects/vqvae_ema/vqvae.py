"""A one-level VQ-VAE: conv encoder, vector quantizer with an exponential-moving-average
codebook (no codebook loss), conv decoder. The codebook statistics are module buffers that
every training forward updates."""
import torch
from torch import nn
from torch.nn import functional as F


class Quantize(nn.Module):
    def __init__(self, dim, n_embed, decay=0.99, eps=1e-5):
        super().__init__()
        self.dim = dim
        self.n_embed = n_embed
        self.decay = decay
        self.eps = eps
        embed = torch.randn(dim, n_embed)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.ones(n_embed))
        self.register_buffer("embed_avg", embed.clone())

    def forward(self, input):
        flatten = input.reshape(-1, self.dim)
        dist = flatten.pow(2).sum(1, keepdim=True) - 2 * flatten @ self.embed + self.embed.pow(2).sum(0, keepdim=True)
        _, embed_ind = (-dist).max(1)
        embed_onehot = F.one_hot(embed_ind, self.n_embed).type(flatten.dtype)
        embed_ind = embed_ind.view(*input.shape[:-1])
        quantize = self.embed_code(embed_ind)

        if self.training:
            embed_onehot_sum = embed_onehot.sum(0)
            embed_sum = flatten.transpose(0, 1) @ embed_onehot
            self.cluster_size = self.cluster_size * self.decay + embed_onehot_sum * (1 - self.decay)
            self.embed_avg = self.embed_avg * self.decay + embed_sum * (1 - self.decay)  # known-miss: TLK101 (forward() reassigns the EMA buffer from embed_sum = flatten.T @ onehot, attached to the encoder output; each batch's matmul graph is carried in self.embed_avg) # known-false: TLK103 (the same moving average, reported as a carried state; its author marked it TLK101)
            n = self.cluster_size.sum()
            cluster_size = (self.cluster_size + self.eps) / (n + self.n_embed * self.eps) * n
            self.embed.data.copy_(self.embed_avg / cluster_size.unsqueeze(0))

        diff = (quantize.detach() - input).pow(2).mean()
        quantize = input + (quantize - input).detach()
        return quantize, diff, embed_ind

    def embed_code(self, embed_id):
        return F.embedding(embed_id, self.embed.transpose(0, 1))


class ResBlock(nn.Module):
    def __init__(self, in_channel, channel):
        super().__init__()
        self.conv = nn.Sequential(nn.ReLU(), nn.Conv2d(in_channel, channel, 3, padding=1), nn.ReLU(inplace=True),
                                  nn.Conv2d(channel, in_channel, 1))

    def forward(self, input):
        return input + self.conv(input)


class VQVAE(nn.Module):
    def __init__(self, in_channel=3, channel=32, n_res_channel=8, embed_dim=8, n_embed=32, decay=0.99):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_channel, channel, 4, stride=2, padding=1), nn.ReLU(inplace=True),
                                 nn.Conv2d(channel, channel, 3, padding=1), ResBlock(channel, n_res_channel),
                                 nn.ReLU(inplace=True))
        self.quantize_conv = nn.Conv2d(channel, embed_dim, 1)
        self.quantize = Quantize(embed_dim, n_embed, decay=decay)
        self.dec = nn.Sequential(nn.Conv2d(embed_dim, channel, 3, padding=1), ResBlock(channel, n_res_channel),
                                 nn.ReLU(inplace=True), nn.ConvTranspose2d(channel, in_channel, 4, stride=2, padding=1))

    def forward(self, input):
        quant, diff, _ = self.encode(input)
        return self.decode(quant), diff

    def encode(self, input):
        quant = self.quantize_conv(self.enc(input)).permute(0, 2, 3, 1)
        quant, diff, ids = self.quantize(quant)
        return quant.permute(0, 3, 1, 2), diff.unsqueeze(0), ids

    def decode(self, quant):
        return self.dec(quant)
