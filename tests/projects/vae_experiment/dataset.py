import torch
from torch.utils.data import Dataset, DataLoader


class BlobDataset(Dataset):
    """Stand-in for CelebA: 16x16 single-channel images with one Gaussian blob each."""

    def __init__(self, n: int = 512, img_size: int = 16, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        centers = torch.rand(n, 2, generator=g) * (img_size - 4) + 2
        widths = torch.rand(n, 1, generator=g) * 2.0 + 1.5
        ys, xs = torch.meshgrid(torch.arange(img_size).float(), torch.arange(img_size).float(), indexing="ij")
        d2 = (ys[None] - centers[:, 0, None, None]) ** 2 + (xs[None] - centers[:, 1, None, None]) ** 2
        self.data = torch.exp(-d2 / (2 * widths[:, :, None] ** 2)).unsqueeze(1)
        self.labels = torch.zeros(n, dtype=torch.long)

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, idx):
        return self.data[idx], self.labels[idx]


class VAEDataset(object):
    def __init__(self, train_batch_size: int = 16, val_batch_size: int = 16, num_workers: int = 0, **kwargs):
        self.train_batch_size = train_batch_size
        self.val_batch_size = val_batch_size
        self.num_workers = num_workers
        self.train_dataset = BlobDataset(seed=0)
        self.val_dataset = BlobDataset(n=64, seed=1)

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.train_batch_size, shuffle=True,
                          num_workers=self.num_workers, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_dataset, batch_size=self.val_batch_size, shuffle=False,
                          num_workers=self.num_workers)
