"""Deterministic toy segmentation data: coloured blobs on a noisy background."""
import torch

from ..registry import DATASETS


@DATASETS.register_module()
class SyntheticSegDataset:

    def __init__(self, num_samples: int, size: int = 8, num_classes: int = 3, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        self.samples = []
        palette = torch.tensor([[0.2, 0.2, 0.2], [0.9, 0.1, 0.1], [0.1, 0.8, 0.3]])
        yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing='ij')
        for _ in range(num_samples):
            label = torch.zeros(size, size, dtype=torch.long)
            for cls in range(1, num_classes):
                cy, cx = torch.randint(0, size, (2,), generator=g)
                r = 1 + int(torch.randint(1, 3, (1,), generator=g))
                label[((yy - cy) ** 2 + (xx - cx) ** 2) <= r * r] = cls
            img = palette[label].permute(2, 0, 1) + 0.1 * torch.randn(3, size, size, generator=g)
            self.samples.append((img, label))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        return self.samples[idx]


def collate(samples):
    imgs, labels = zip(*samples)
    return dict(inputs=torch.stack(imgs), data_samples=torch.stack(labels))


def build_dataloader(dataset, batch_size):
    return [collate([dataset[j] for j in range(i, min(i + batch_size, len(dataset)))])
            for i in range(0, len(dataset), batch_size)]
