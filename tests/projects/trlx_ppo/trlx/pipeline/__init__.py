from abc import abstractmethod
from dataclasses import is_dataclass
from typing import Any, Iterable

from torch.utils.data import DataLoader, Dataset


class BasePipeline(Dataset):
    def __init__(self, path: str = "dataset"):
        super().__init__()

    @abstractmethod
    def __getitem__(self, index: int):
        pass

    @abstractmethod
    def __len__(self) -> int:
        pass

    @abstractmethod
    def create_loader(self, batch_size: int, shuffle: bool, **kwargs) -> DataLoader:
        pass


class BaseRolloutStore(Dataset):
    def __init__(self, capacity=-1):
        self.history: Iterable[Any] = None
        self.capacity = capacity

    @abstractmethod
    def push(self, exps: Iterable[Any]):
        pass

    def __getitem__(self, index: int):
        return self.history[index]

    def __len__(self) -> int:
        return len(self.history)

    @abstractmethod
    def create_loader(self, batch_size: int, shuffle: bool) -> DataLoader:
        pass


class MiniBatchIterator:
    """A custom iterator for generating mini-batches from a PyTorch DataLoader."""

    def __init__(self, data_loader, mb_size, num_mb):
        self.data_loader = data_loader
        self.data_loader_iter = iter(data_loader)
        self.mb_size = mb_size
        self.num_mb = num_mb

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self.data_loader_iter)
        minibatches = []
        for mbi in range(self.num_mb):
            sliced_data = {}
            batch_dict = batch.__dict__ if is_dataclass(batch) else batch
            for key, value in batch_dict.items():
                start_idx = mbi * self.mb_size
                end_idx = (mbi + 1) * self.mb_size
                sliced_data[key] = value[start_idx:end_idx]
            if is_dataclass(batch):
                minibatches.append(batch.__class__(**sliced_data))
            else:
                minibatches.append(sliced_data)
        return minibatches
