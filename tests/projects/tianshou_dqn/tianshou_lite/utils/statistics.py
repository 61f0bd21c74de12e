from numbers import Number
from typing import List, Union

import torch


class MovAvg(object):
    """Class for moving average.

    It will automatically exclude the infinity and NaN. Usage:
    ::

        >>> stat = MovAvg(size=66)
        >>> stat.add(torch.tensor(5))
        5.0
        >>> stat.add(float('inf'))  # which will not add to stat
        5.0
        >>> stat.add([6, 7, 8])
        6.5
    """

    def __init__(self, size: int = 100) -> None:
        super().__init__()
        self.size = size
        self.cache: List[float] = []
        self.banned = [float("inf"), float("nan"), float("-inf")]

    def add(self, x: Union[Number, list, torch.Tensor]) -> float:
        """Add a scalar into :class:`MovAvg`.

        You can add ``torch.Tensor`` with only one element, a python scalar, or
        a list of python scalar.
        """
        if isinstance(x, torch.Tensor):
            x = x.detach().flatten().cpu().tolist()
        if isinstance(x, Number):
            x = [x]
        for i in x:  # type: ignore
            if i == i and i not in self.banned:
                self.cache.append(float(i))
        if self.size > 0 and len(self.cache) > self.size:
            self.cache = self.cache[-self.size:]
        return self.get()

    def get(self) -> float:
        """Get the average."""
        if len(self.cache) == 0:
            return 0.0
        return sum(self.cache) / len(self.cache)

    def mean(self) -> float:
        return self.get()

    def std(self) -> float:
        if len(self.cache) == 0:
            return 0.0
        m = self.get()
        return (sum((c - m) ** 2 for c in self.cache) / len(self.cache)) ** 0.5


class RunningMeanStd(object):
    """Calculates the running mean and std of a data stream.

    https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm
    """

    def __init__(self, mean: Union[float, torch.Tensor] = 0.0, std: Union[float, torch.Tensor] = 1.0) -> None:
        self.mean, self.var = mean, std
        self.count = 0

    def update(self, x: torch.Tensor) -> None:
        """Add a batch of item into RMS with the same shape, modify mean/var/count."""
        batch_mean, batch_var = x.mean(dim=0), x.var(dim=0, unbiased=False)
        batch_count = len(x)

        delta = batch_mean - self.mean
        total_count = self.count + batch_count

        new_mean = self.mean + delta * batch_count / total_count
        m_a = self.var * self.count
        m_b = batch_var * batch_count
        m_2 = m_a + m_b + delta ** 2 * self.count * batch_count / total_count
        new_var = m_2 / total_count

        self.mean, self.var = new_mean, new_var
        self.count = total_count

    def norm(self, x: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
        return (x - self.mean) / (torch.as_tensor(self.var) + eps).sqrt()
