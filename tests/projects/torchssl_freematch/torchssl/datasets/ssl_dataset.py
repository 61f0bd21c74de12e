"""Synthetic stand-in for TorchSSL datasets/ssl_dataset.py: labeled loader yields
(idx, x, y), unlabeled loader yields (idx, x_weak, x_strong) as BasicDataset does."""
import torch
from torch.utils.data import DataLoader, Dataset


def weak_augment(x, g):
    # random horizontal flip + small translation (the 'weak' transform)
    if torch.rand(1, generator=g).item() < 0.5:
        x = x.flip(-1)
    shift = int(torch.randint(-1, 2, (1,), generator=g))
    return torch.roll(x, shifts=shift, dims=-1)


def strong_augment(x, g):
    # RandAugment-ish: weak + noise + cutout
    x = weak_augment(x, g) + 0.3 * torch.randn(x.shape, generator=g)
    i, j = torch.randint(0, x.shape[-1] - 2, (2,), generator=g).tolist()
    x = x.clone()
    x[:, i:i + 3, j:j + 3] = 0.0
    return x


class BasicDataset(Dataset):
    def __init__(self, data, targets=None, num_classes=None, is_ulb=False, seed=0):
        self.data = data
        self.targets = targets
        self.num_classes = num_classes
        self.is_ulb = is_ulb
        self.g = torch.Generator().manual_seed(seed)

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, idx):
        img = self.data[idx]
        if not self.is_ulb:
            return idx, weak_augment(img, self.g), self.targets[idx]
        return idx, weak_augment(img, self.g), strong_augment(img, self.g)


class SSL_Dataset:
    """Gaussian blobs in image space, one blob per class."""

    def __init__(self, name='cifar100', num_classes=100, image_size=8, seed=0):
        self.name = name
        self.num_classes = num_classes
        self.image_size = image_size
        g = torch.Generator().manual_seed(seed)
        self.prototypes = torch.randn(num_classes, 3, image_size, image_size, generator=g)
        self.g = g

    def _sample(self, n):
        y = torch.randint(0, self.num_classes, (n,), generator=self.g)
        x = self.prototypes[y] + 0.5 * torch.randn(n, 3, self.image_size, self.image_size, generator=self.g)
        return x, y

    def get_ssl_dset(self, num_labels, num_ulb):
        x_lb, y_lb = self._sample(num_labels)
        x_ulb, _ = self._sample(num_ulb)
        lb_dset = BasicDataset(x_lb, y_lb, self.num_classes, is_ulb=False, seed=1)
        ulb_dset = BasicDataset(x_ulb, None, self.num_classes, is_ulb=True, seed=2)
        return lb_dset, ulb_dset

    def get_dset(self, num_eval):
        x, y = self._sample(num_eval)
        return BasicDataset(x, y, self.num_classes, is_ulb=False, seed=3)


def get_data_loader(dset, batch_size, num_iters, seed=0):
    """Loader that yields exactly num_iters batches (RandomSampler with replacement,
    like TorchSSL's get_data_loader(num_iters=...))."""
    g = torch.Generator().manual_seed(seed)
    sampler = torch.utils.data.RandomSampler(dset, replacement=True,
                                             num_samples=num_iters * batch_size, generator=g)
    return DataLoader(dset, batch_size=batch_size, sampler=sampler, num_workers=0, drop_last=True)
