from __future__ import annotations

import torch

from skrl.memories.torch.base import Memory


class RandomMemory(Memory):
    def __init__(self, *, memory_size: int, num_envs: int = 1, device=None, replacement: bool = True) -> None:
        super().__init__(memory_size=memory_size, num_envs=num_envs, device=device)
        self._replacement = replacement

    def sample(self, names, *, batch_size: int, mini_batches: int = 1):
        if self._replacement:
            indexes = torch.randint(0, len(self), (batch_size,))
        else:
            indexes = torch.randperm(len(self))[:batch_size]
        self.sampling_indexes = indexes
        return self.sample_by_index(names, indexes=indexes, mini_batches=mini_batches)
