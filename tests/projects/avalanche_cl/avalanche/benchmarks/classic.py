"""A tiny class-incremental benchmark in the spirit of avalanche.benchmarks.classic.SplitMNIST:
Gaussian blobs, two new classes per experience."""
from dataclasses import dataclass, field
from typing import List

import torch
from torch.utils.data import Dataset


class ClassificationDataset(Dataset):
    """(x, y, task_label, sample_idx) items, like an AvalancheDataset with targets/targets_task_labels."""

    def __init__(self, x, y, task_label=0):
        self.x = x
        self.targets = y
        self.task_label = task_label

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, idx):
        return self.x[idx], self.targets[idx], self.task_label, idx

    def subset(self, indices):
        idx = torch.as_tensor(indices, dtype=torch.long)
        return ClassificationDataset(self.x[idx], self.targets[idx], self.task_label)


@dataclass
class CLExperience:
    dataset: ClassificationDataset
    current_experience: int
    classes_in_this_experience: List[int]
    previous_classes: List[int] = field(default_factory=list)
    future_classes: List[int] = field(default_factory=list)

    @property
    def classes_seen_so_far(self):
        return self.previous_classes + self.classes_in_this_experience


class NCScenario:
    def __init__(self, train_stream, test_stream, n_classes):
        self.train_stream = train_stream
        self.test_stream = test_stream
        self.n_classes = n_classes


def SplitGaussian(n_experiences=2, classes_per_exp=2, train_size_per_exp=320,
                  test_size_per_exp=64, input_size=32, seed=0):
    """Each experience holds `train_size_per_exp` training samples."""
    g = torch.Generator().manual_seed(seed)
    n_classes = n_experiences * classes_per_exp
    centers = 2.0 * torch.randn(n_classes, input_size, generator=g)

    def _make(n, classes):
        y = torch.tensor(classes)[torch.randint(len(classes), (n,), generator=g)]
        x = centers[y] + torch.randn(n, input_size, generator=g)
        return ClassificationDataset(x, y)

    train_stream, test_stream = [], []
    for e in range(n_experiences):
        classes = list(range(e * classes_per_exp, (e + 1) * classes_per_exp))
        prev = list(range(0, e * classes_per_exp))
        fut = list(range((e + 1) * classes_per_exp, n_classes))
        train_stream.append(CLExperience(_make(train_size_per_exp, classes), e, classes, prev, fut))
        test_stream.append(CLExperience(_make(test_size_per_exp, classes), e, classes, prev, fut))
    return NCScenario(train_stream, test_stream, n_classes)
