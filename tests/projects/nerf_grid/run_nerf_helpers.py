# Modelled on run_nerf_helpers.py of yenchenlin/nerf-pytorch: the image metrics as lambdas
# (img2mse, mse2psnr), the positional encoding and the NeRF MLP (density from the position,
# colour from the position features and the view direction), reduced to one skip-less trunk.
import torch
import torch.nn as nn
import torch.nn.functional as F

img2mse = lambda x, y: torch.mean((x - y) ** 2)
mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.Tensor([10.0]))


def psnr_value(rgb, target):
    """The PSNR of a rendering as a Python number, for logs."""
    return mse2psnr(img2mse(rgb, target)).item()


def positional_encoding(x, num_freqs):
    encoded = [x]
    for frequency in 2.0 ** torch.arange(num_freqs):
        encoded += [torch.sin(x * frequency), torch.cos(x * frequency)]
    return torch.cat(encoded, -1)


class NeRF(nn.Module):
    def __init__(self, D=2, W=32, multires=4, multires_views=2):
        super().__init__()
        self.multires, self.multires_views = multires, multires_views
        input_ch = 3 * (1 + 2 * multires)
        input_ch_views = 3 * (1 + 2 * multires_views)
        layers = [nn.Linear(input_ch, W)] + [nn.Linear(W, W) for _ in range(D - 1)]
        self.pts_linears = nn.ModuleList(layers)
        self.alpha_linear = nn.Linear(W, 1)
        self.feature_linear = nn.Linear(W, W)
        self.views_linear = nn.Linear(W + input_ch_views, W // 2)
        self.rgb_linear = nn.Linear(W // 2, 3)

    def forward(self, pts, viewdirs):
        h = positional_encoding(pts, self.multires)
        for layer in self.pts_linears:
            h = F.relu(layer(h))
        alpha = self.alpha_linear(h)
        h = torch.cat([self.feature_linear(h), positional_encoding(viewdirs, self.multires_views)], -1)
        rgb = self.rgb_linear(F.relu(self.views_linear(h)))
        return torch.cat([rgb, alpha], -1)
