import torch
from torch.utils.data import Dataset, DataLoader


class syntheticShapesLoader(Dataset):
    """Stand-in for the VOC/cityscapes loaders: noisy images whose label map is a
    deterministic function of the clean signal, so the task is learnable."""

    def __init__(self, split="train", n_samples=256, img_size=(32, 32), n_classes=4, seed=0):
        g = torch.Generator().manual_seed(seed + (0 if split == "train" else 1))
        clean = torch.randn(n_samples, 3, img_size[0] // 4, img_size[1] // 4, generator=g)
        clean = torch.nn.functional.interpolate(clean, size=img_size, mode="bilinear", align_corners=False)
        self.labels = (clean[:, 0] > 0).long() + 2 * (clean[:, 1] > 0.3).long()
        self.labels = self.labels.clamp(max=n_classes - 1)
        self.images = clean + 0.3 * torch.randn(clean.shape, generator=g)
        self.n_classes = n_classes

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


def get_loader(name, split="train", batch_size=8, **kwargs):
    if name != "synthetic":
        raise ValueError("only the synthetic loader ships with this repo")
    dataset = syntheticShapesLoader(split=split, **kwargs)
    return DataLoader(dataset, batch_size=batch_size, shuffle=(split == "train"), num_workers=0, drop_last=True)
