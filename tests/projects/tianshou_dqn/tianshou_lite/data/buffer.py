from typing import Any, Dict, Optional, Tuple

import torch

from tianshou_lite.data.batch import Batch


def _create_value(inst: Any, size: int) -> Any:
    if isinstance(inst, Batch):
        return Batch({k: _create_value(v, size) for k, v in inst.items()})
    inst = torch.as_tensor(inst)
    return torch.zeros((size, *inst.shape[1:]), dtype=inst.dtype)


def _write(store: Any, ptrs: torch.Tensor, value: Any) -> None:
    if isinstance(store, Batch):
        for k, v in value.items():
            _write(store[k], ptrs, v)
    else:
        store[ptrs] = torch.as_tensor(value, dtype=store.dtype)


class ReplayBuffer:
    """:class:`~tianshou.data.ReplayBuffer` stores data generated from interaction
    between the policy and environment, in circular-queue style.

    :param int size: the maximum size of replay buffer.
    """

    _reserved_keys = ("obs", "act", "rew", "done", "obs_next", "info", "policy")

    def __init__(self, size: int, **kwargs: Any) -> None:
        self.maxsize = size
        self._meta: Dict[str, Any] = {}
        self.reset()

    def reset(self) -> None:
        self.last_index = torch.tensor([0])
        self._index = self._size = 0
        self._ep_rew = torch.zeros(0)
        self._ep_len = torch.zeros(0, dtype=torch.long)
        self._ep_idx = torch.zeros(0, dtype=torch.long)

    def __len__(self) -> int:
        return self._size

    def __getattr__(self, key: str) -> Any:
        try:
            return self.__dict__["_meta"][key]
        except KeyError as exception:
            raise AttributeError(key) from exception

    def _ensure_episode_stats(self, n: int) -> None:
        if len(self._ep_rew) != n:
            self._ep_rew = torch.zeros(n)
            self._ep_len = torch.zeros(n, dtype=torch.long)
            self._ep_idx = torch.zeros(n, dtype=torch.long)

    def add(self, batch: Batch) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Add a batch of transitions (one per environment) into the buffer.

        :return: (ptr, ep_rew, ep_len, ep_idx), one entry per environment.
        """
        n = len(batch)
        self._ensure_episode_stats(n)
        ptrs = (self._index + torch.arange(n)) % self.maxsize
        for key in self._reserved_keys:
            if key not in batch or key == "info":
                continue
            value = batch[key]
            if isinstance(value, Batch) and value.is_empty():
                continue
            if key not in self._meta:
                self._meta[key] = _create_value(value, self.maxsize)
            _write(self._meta[key], ptrs, value)
        self._index = int((self._index + n) % self.maxsize)
        self._size = min(self._size + n, self.maxsize)
        self.last_index = ptrs

        done = batch.done.bool()
        self._ep_rew = self._ep_rew + batch.rew.float()
        self._ep_len = self._ep_len + 1
        ep_rew, ep_len, ep_idx = self._ep_rew.clone(), self._ep_len.clone(), self._ep_idx.clone()
        self._ep_rew = torch.where(done, torch.zeros_like(self._ep_rew), self._ep_rew)
        self._ep_len = torch.where(done, torch.zeros_like(self._ep_len), self._ep_len)
        self._ep_idx = torch.where(done, (ptrs + 1) % self.maxsize, self._ep_idx)
        return ptrs, ep_rew, ep_len, ep_idx

    def next(self, index: torch.Tensor) -> torch.Tensor:
        """Return the index of next transition (stays put at episode ends)."""
        end = self.done[index].bool()
        return torch.where(end, index, (index + 1) % self.maxsize)

    def sample_indices(self, batch_size: int) -> torch.Tensor:
        if batch_size > 0:
            return torch.randint(self._size, (batch_size,))
        return torch.arange(self._size)

    def sample(self, batch_size: int) -> Tuple[Batch, torch.Tensor]:
        indices = self.sample_indices(batch_size)
        return self[indices], indices

    def __getitem__(self, index: torch.Tensor) -> Batch:
        return Batch({k: v[index] for k, v in self._meta.items()})
