"""Synthetic CIFAR-like batches and a per-sample cache of teacher logits."""
import torch


def fetch_batches(num_batches, batch_size=16, num_classes=10, image_size=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    for b in range(num_batches):
        idx = torch.arange(b * batch_size, (b + 1) * batch_size)
        x = torch.randn(batch_size, 3, image_size, image_size, generator=gen)
        y = torch.randint(0, num_classes, (batch_size,), generator=gen)
        yield idx, x, y


class TeacherLogitCache:
    """Teacher logits are computed once per sample and re-used on later epochs."""

    def __init__(self, teacher):
        self.teacher = teacher
        self.cache = {}

    def __call__(self, idx, x):
        keys = [int(i) for i in idx]
        if all(k in self.cache for k in keys):
            return torch.stack([self.cache[k] for k in keys])
        self.teacher.eval()
        logits = self.teacher(x)
        for k, row in zip(keys, logits):
            self.cache[k] = row  # known-miss: TLK102
        return logits

    def __len__(self):
        return len(self.cache)
