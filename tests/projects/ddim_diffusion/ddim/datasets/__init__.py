import torch
from torch.utils.data import Dataset


class RandomImages(Dataset):
    """Deterministic images in [0, 1] with a dummy label (stand-in for CIFAR10 / CelebA)."""

    def __init__(self, num_samples, channels, image_size, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.rand(num_samples, channels, image_size, image_size, generator=g)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, index):
        return self.images[index], 0


def get_dataset(args, config):
    dataset = RandomImages(64, config.data.channels, config.data.image_size, seed=args.seed)
    test_dataset = RandomImages(16, config.data.channels, config.data.image_size, seed=args.seed + 1)
    return dataset, test_dataset


def data_transform(config, X):
    if config.data.uniform_dequantization:
        X = X / 256.0 * 255.0 + torch.rand_like(X) / 256.0
    if config.data.gaussian_dequantization:
        X = X + torch.randn_like(X) * 0.01

    if config.data.rescaled:
        X = 2 * X - 1.0

    if hasattr(config, "image_mean"):
        return X - config.image_mean.to(X.device)[None, ...]

    return X


def inverse_data_transform(config, X):
    if hasattr(config, "image_mean"):
        X = X + config.image_mean.to(X.device)[None, ...]

    if config.data.rescaled:
        X = (X + 1.0) / 2.0

    return torch.clamp(X, 0.0, 1.0)
