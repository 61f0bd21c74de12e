import random
import time

import torch


class ScopedTimer:
    """Context manager measuring the elapsed time of a code block (ms)."""

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *args):
        pass

    @property
    def elapsed_time_ms(self) -> float:
        return (time.perf_counter() - self._start) * 1000.0


def set_seed(seed: int = 42) -> int:
    random.seed(seed)
    torch.manual_seed(seed)
    return seed


def compute_space_size(space, occupied_size: bool = False) -> int:
    """Spaces are plain ints or shape tuples here (gymnasium is not a dependency)."""
    if space is None:
        return None
    if isinstance(space, int):
        return space
    size = 1
    for s in space:
        size *= int(s)
    return size
