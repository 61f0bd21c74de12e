"""A very small style-based generator and a conv discriminator."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MappingNetwork(nn.Module):
    def __init__(self, latent_dim, n_layers=2):
        super().__init__()
        layers = []
        for _ in range(n_layers):
            layers += [nn.Linear(latent_dim, latent_dim), nn.LeakyReLU(0.2)]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        z = z * torch.rsqrt(z.pow(2).mean(dim=1, keepdim=True) + 1e-8)
        return self.net(z)


class Generator(nn.Module):
    def __init__(self, latent_dim=16, channels=16, size=8):
        super().__init__()
        self.channels = channels
        self.mapping = MappingNetwork(latent_dim)
        self.to_const = nn.Linear(latent_dim, channels * 4 * 4)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.to_rgb = nn.Conv2d(channels, 3, 1)
        self.size = size

    def forward(self, z, return_latents=False):
        latents = self.mapping(z)
        x = self.to_const(latents).view(-1, self.channels, 4, 4)
        x = F.leaky_relu(self.conv1(x), 0.2)
        x = F.interpolate(x, size=self.size, mode="nearest")
        x = F.leaky_relu(self.conv2(x), 0.2)
        img = torch.tanh(self.to_rgb(x))
        return img, (latents if return_latents else None)


class Discriminator(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(3, channels, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(channels, channels * 2, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
        )
        self.final = nn.Linear(channels * 2 * 2 * 2, 1)

    def forward(self, x):
        return self.final(self.convs(x).flatten(1))
