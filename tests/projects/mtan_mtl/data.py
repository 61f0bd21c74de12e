"""Synthetic NYUv2-like batches: image, semantic label, depth, surface normal (8x8)."""
import torch
import torch.nn.functional as F


class NYUSynth:
    def __init__(self, n_batches, batch_size=2, size=8, class_nb=3, seed=0):
        self.n_batches, self.batch_size, self.size = n_batches, batch_size, size
        self.class_nb, self.seed = class_nb, seed

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        B, S = self.batch_size, self.size
        for _ in range(self.n_batches):
            img = torch.rand(B, 3, S, S, generator=g)
            label = (img[:, 0] * self.class_nb).long().clamp(max=self.class_nb - 1)
            depth = img[:, 1:2] + 0.1
            normal = F.normalize(img - 0.5, dim=1)
            yield img, label, depth, normal


def make_loaders(n_train, n_test=2):
    return NYUSynth(n_train, seed=0), NYUSynth(n_test, seed=7)
