from argparse import Namespace
from typing import Tuple

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ContinualDataset:
    """
    Continual learning evaluation setting: a stream of tasks, each with its own
    train loader; test loaders of all the tasks seen so far are kept.
    """
    NAME: str
    SETTING: str
    N_CLASSES_PER_TASK: int
    N_TASKS: int

    def __init__(self, args: Namespace) -> None:
        self.train_loader = None
        self.test_loaders = []
        self.i = 0
        self.c_task = -1
        self.args = args

    @property
    def N_CLASSES(self) -> int:
        return self.N_CLASSES_PER_TASK * self.N_TASKS

    def get_offsets(self, task_idx: int = None) -> Tuple[int, int]:
        task_idx = task_idx if task_idx is not None else self.c_task
        offset1 = task_idx * self.N_CLASSES_PER_TASK
        offset2 = (task_idx + 1) * self.N_CLASSES_PER_TASK
        return offset1, offset2

    def get_data_loaders(self) -> Tuple[DataLoader, DataLoader]:
        raise NotImplementedError

    @staticmethod
    def get_backbone() -> nn.Module:
        raise NotImplementedError

    @staticmethod
    def get_transform():
        return None

    @staticmethod
    def get_loss() -> nn.Module:
        raise NotImplementedError


def store_masked_loaders(train_set, test_set, setting: ContinualDataset) -> Tuple[DataLoader, DataLoader]:
    """
    Keeps only the examples of the classes of the current task and builds the loaders.
    `train_set` yields (inputs, labels, not_aug_inputs).
    """
    setting.c_task += 1
    start, end = setting.get_offsets()
    x, y, x_na = train_set
    train_mask = (y >= start) & (y < end)
    tx, ty, tx_na = test_set[0], test_set[1], None
    test_mask = (ty >= start) & (ty < end)

    gen = torch.Generator().manual_seed(1000 + setting.c_task)
    train_loader = DataLoader(TensorDataset(x[train_mask], y[train_mask], x_na[train_mask]),
                              batch_size=setting.args.batch_size, shuffle=True, generator=gen)
    test_loader = DataLoader(TensorDataset(tx[test_mask], ty[test_mask]),
                             batch_size=setting.args.batch_size, shuffle=False)
    setting.test_loaders.append(test_loader)
    setting.train_loader = train_loader
    return train_loader, test_loader
