# --------------------------------------------------------
# Synthetic stand-in for the ImageFolder used in pre-training
# --------------------------------------------------------
import torch
from torch.utils.data import Dataset


class RandomImageFolder(Dataset):
    """Deterministic random images with a dummy target, like datasets.ImageFolder(..., transform)."""

    def __init__(self, num_samples, input_size=32, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randn(num_samples, 3, input_size, input_size, generator=g)
        self.targets = torch.zeros(num_samples, dtype=torch.long)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, index):
        return self.images[index], self.targets[index]


def build_pretrain_dataset(args, num_samples=64):
    return RandomImageFolder(num_samples, input_size=args.input_size, seed=args.seed)
