from __future__ import annotations

from abc import ABC, abstractmethod

import torch

from skrl import config
from skrl.utils import compute_space_size


class Memory(ABC):
    def __init__(self, *, memory_size: int, num_envs: int = 1, device=None) -> None:
        """Base class that represents a memory with circular buffers.

        Buffers are tensors with shape ``(memory_size, num_envs, data_size)``.
        """
        self.memory_size = memory_size
        self.num_envs = num_envs
        self.device = config.torch.parse_device(device)

        self.filled = False
        self.env_index = 0
        self.memory_index = 0

        self.tensors = {}
        self.tensors_view = {}
        self.sampling_indexes = None

    def __len__(self) -> int:
        return self.memory_size * self.num_envs if self.filled else self.memory_index * self.num_envs + self.env_index

    def get_tensor_by_name(self, name: str) -> torch.Tensor:
        return self.tensors[name]

    def set_tensor_by_name(self, name: str, tensor: torch.Tensor) -> None:
        with torch.no_grad():
            self.tensors[name].copy_(tensor)

    def create_tensor(self, name: str, *, size, dtype: torch.dtype | None = None) -> bool:
        if size is None:
            return False
        size = compute_space_size(size, occupied_size=True)
        if name in self.tensors:
            return False
        shape = (self.memory_size, self.num_envs, size)
        setattr(self, f"_tensor_{name}", torch.zeros(shape, device=self.device, dtype=dtype))
        self.tensors[name] = getattr(self, f"_tensor_{name}")
        self.tensors_view[name] = self.tensors[name].view((-1, *shape[2:]))
        # fill (float) tensors with NaN. This is useful for early misuse detection.
        for tensor in self.tensors.values():
            if torch.is_floating_point(tensor):
                tensor.fill_(float("nan"))
        return True

    def reset(self) -> None:
        self.filled = False
        self.env_index = 0
        self.memory_index = 0

    def add_samples(self, **tensors: torch.Tensor) -> None:
        """Add/store samples in memory (``(num_envs, data_size)`` tensors)."""
        if not tensors:
            raise ValueError("There are no samples. Provide samples as key-value arguments")
        tmp = tensors.get("observations", tensors[next(iter(tensors))])
        dim, shape = tmp.ndim, tmp.shape
        if dim == 2 and shape[0] == self.num_envs:
            for name, tensor in tensors.items():
                if name in self.tensors and tensor is not None:
                    self.tensors[name][self.memory_index].copy_(tensor)
            self.memory_index += 1
        else:
            raise ValueError(f"Expected shape (num_envs, data_size), got {shape}")

        if self.memory_index >= self.memory_size:
            self.memory_index = 0
            self.filled = True

    @abstractmethod
    def sample(self, names, *, batch_size: int, mini_batches: int = 1):
        pass

    def sample_by_index(self, names, *, indexes, mini_batches: int = 1):
        if mini_batches > 1:
            batches = torch.tensor_split(indexes, mini_batches)
            return [[self.tensors_view[name][batch] for name in names] for batch in batches]
        return [[self.tensors_view[name][indexes] for name in names]]

    def sample_all(self, names, *, mini_batches: int = 1):
        """Sample all data from memory, shuffled, split in ``mini_batches``."""
        indexes = torch.randperm(len(self))
        return self.sample_by_index(names, indexes=indexes, mini_batches=mini_batches)
