# Layout modelled on rosinality/stylegan2-pytorch (model.py): Generator returns (image, latents)
# when asked for the latents, Discriminator maps an image to a score. Reduced to small MLPs.
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dim=16, image_size=8):
        super().__init__()
        self.style = nn.Sequential(nn.Linear(latent_dim, latent_dim), nn.LeakyReLU(0.2), nn.Linear(latent_dim, latent_dim))
        self.synthesis = nn.Sequential(nn.Linear(latent_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 3 * image_size * image_size))
        self.image_size = image_size

    def forward(self, noise, return_latents=False):
        latent = self.style(noise)
        image = self.synthesis(latent).view(-1, 3, self.image_size, self.image_size)
        if return_latents:
            return image, latent
        return image, None


class Discriminator(nn.Module):
    def __init__(self, image_size=8):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * image_size * image_size, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, image):
        return self.net(image)
