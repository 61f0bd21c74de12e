import math
import random
import time
from typing import Iterable


def set_seed(seed: int):
    import torch

    random.seed(seed)
    torch.manual_seed(seed)


def significant(x, ndigits=2):
    """Round a float to `ndigits` significant digits (for the evaluation table)."""
    if isinstance(x, (int, str)) or x == 0 or not math.isfinite(x):
        return x
    return round(x, ndigits - int(math.floor(math.log10(abs(x)))))


class Clock:
    """Helper object for keeping track of time for computations."""

    def __init__(self):
        self.start = time.time()
        self.total_time = 0
        self.total_samples = 0

    def tick(self, samples: int = 0) -> float:
        end = time.time()
        delta = end - self.start
        self.start = end
        if samples != 0:
            self.total_time += delta
            self.total_samples += samples
        return delta

    def get_stat(self, n_samp: int = 1000, reset: bool = False):
        sec_per_samp = self.total_time / max(self.total_samples, 1)
        if reset:
            self.total_samples = 0
            self.total_time = 0
        return sec_per_samp * n_samp


def infinite_dataloader(dataloader: Iterable) -> Iterable:
    """Returns a cyclic infinite dataloader from a finite dataloader."""
    while True:
        yield from dataloader
