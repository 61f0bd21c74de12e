"""Image data for the Trainer. Upstream reads a folder of images (Dataset + expand_greyscale);
here a seeded synthetic dataset of smooth colour blobs stands in for the folder."""
import math

import torch
from torch.utils import data


class Dataset(data.Dataset):
    def __init__(self, num_images, image_size, transparent=False, aug_prob=0., seed=0):
        super().__init__()
        self.image_size = image_size
        self.num_channels = 3 if not transparent else 4
        g = torch.Generator().manual_seed(seed)
        lin = torch.linspace(-1, 1, image_size)
        yy, xx = torch.meshgrid(lin, lin, indexing='ij')
        centres = torch.rand(num_images, 2, generator=g) * 1.6 - 0.8
        colours = torch.rand(num_images, self.num_channels, generator=g)
        d2 = (xx[None] - centres[:, 0, None, None]) ** 2 + (yy[None] - centres[:, 1, None, None]) ** 2
        blobs = torch.exp(-d2 / 0.1)[:, None] * colours[:, :, None, None]
        self.images = blobs.clamp(0, 1)
        self.aug_prob = aug_prob

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, index):
        img = self.images[index]
        if self.aug_prob > 0 and torch.rand(()) < self.aug_prob:
            img = img.flip(-1)
        return img
