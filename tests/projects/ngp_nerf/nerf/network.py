import torch
import torch.nn as nn
import torch.nn.functional as F

from encoding import get_encoder
from activation import trunc_exp
from .renderer import NeRFRenderer


class NeRFNetwork(NeRFRenderer):
    def __init__(self,
                 encoding="frequency",
                 encoding_dir="frequency",
                 num_layers=2,
                 hidden_dim=32,
                 geo_feat_dim=15,
                 num_layers_color=2,
                 hidden_dim_color=32,
                 bound=1,
                 **kwargs,
                 ):
        super().__init__(bound, **kwargs)

        # sigma network
        self.num_layers = num_layers
        self.hidden_dim = hidden_dim
        self.geo_feat_dim = geo_feat_dim
        self.encoder, self.in_dim = get_encoder(encoding, multires=6)

        sigma_net = []
        for l in range(num_layers):
            in_dim = self.in_dim if l == 0 else hidden_dim
            out_dim = 1 + self.geo_feat_dim if l == num_layers - 1 else hidden_dim
            sigma_net.append(nn.Linear(in_dim, out_dim, bias=False))
        self.sigma_net = nn.ModuleList(sigma_net)

        # color network
        self.num_layers_color = num_layers_color
        self.hidden_dim_color = hidden_dim_color
        self.encoder_dir, self.in_dim_dir = get_encoder(encoding_dir, multires=4)

        color_net = []
        for l in range(num_layers_color):
            in_dim = self.in_dim_dir + self.geo_feat_dim if l == 0 else hidden_dim_color
            out_dim = 3 if l == num_layers_color - 1 else hidden_dim_color
            color_net.append(nn.Linear(in_dim, out_dim, bias=False))
        self.color_net = nn.ModuleList(color_net)

    def forward(self, x, d):
        # x: [N, 3], in [-bound, bound]
        # d: [N, 3], nomalized in [-1, 1]
        h = self.density(x)
        color = self.color(x, d, **h)
        return h['sigma'], color

    def density(self, x):
        # x: [N, 3], in [-bound, bound]
        x = self.encoder(x, bound=self.bound)
        h = x
        for l in range(self.num_layers):
            h = self.sigma_net[l](h)
            if l != self.num_layers - 1:
                h = F.softplus(h, beta=10.0)

        sigma = trunc_exp(h[..., 0])
        geo_feat = h[..., 1:]
        return {
            'sigma': sigma,
            'geo_feat': geo_feat,
        }

    def color(self, x, d, mask=None, geo_feat=None, **kwargs):
        # x: [N, 3] in [-bound, bound]
        # mask: [N,], bool, indicates where we actually needs to compute rgb.
        d = self.encoder_dir(d)
        h = torch.cat([d, geo_feat], dim=-1)
        for l in range(self.num_layers_color):
            h = self.color_net[l](h)
            if l != self.num_layers_color - 1:
                h = F.relu(h)
        # sigmoid activation for rgb
        return torch.sigmoid(h)

    # optimizer utils
    def get_params(self, lr):
        params = [
            {'params': self.sigma_net.parameters(), 'lr': lr},
            {'params': self.color_net.parameters(), 'lr': lr},
        ]
        return params
