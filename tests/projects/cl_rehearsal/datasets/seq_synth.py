from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from backbone.MNISTMLP import MNISTMLP
from datasets.utils.continual_dataset import ContinualDataset, store_masked_loaders

INPUT_DIM = 32
SAMPLES_PER_CLASS = 160


def _make_split(n_classes: int, per_class: int, seed: int, noise: float):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(n_classes, INPUT_DIM, generator=torch.Generator().manual_seed(7)) * 2.0
    xs, ys = [], []
    for c in range(n_classes):
        xs.append(centers[c] + noise * torch.randn(per_class, INPUT_DIM, generator=g))
        ys.append(torch.full((per_class,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


class SequentialSynth(ContinualDataset):
    """Class-incremental stream of gaussian blobs: 5 tasks of 2 classes each."""
    NAME = 'seq-synth'
    SETTING = 'class-il'
    N_CLASSES_PER_TASK = 2
    N_TASKS = 5

    def __init__(self, args) -> None:
        super().__init__(args)
        x, y = _make_split(self.N_CLASSES, SAMPLES_PER_CLASS, seed=1, noise=1.0)
        # deterministic "augmentation": a fixed jitter applied on top of the raw inputs
        jitter = 0.1 * torch.randn(x.shape, generator=torch.Generator().manual_seed(3))
        self._train = (x + jitter, y, x)
        self._test = _make_split(self.N_CLASSES, 40, seed=2, noise=1.0)

    def get_data_loaders(self) -> Tuple:
        return store_masked_loaders(self._train, self._test, self)

    @staticmethod
    def get_backbone() -> nn.Module:
        return MNISTMLP(INPUT_DIM, SequentialSynth.N_TASKS * SequentialSynth.N_CLASSES_PER_TASK)

    @staticmethod
    def get_loss():
        return F.cross_entropy
