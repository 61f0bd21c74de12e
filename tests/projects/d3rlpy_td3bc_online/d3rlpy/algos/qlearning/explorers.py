from abc import ABCMeta, abstractmethod
from typing import Any

import torch

__all__ = ["Explorer", "NormalNoise", "ProportionalNormalNoise"]


class Explorer(metaclass=ABCMeta):
    @abstractmethod
    def sample(self, algo: Any, x: torch.Tensor, step: int) -> torch.Tensor:
        pass


class NormalNoise(Explorer):
    """Gaussian noise on top of the greedy action (algo.sample_action runs under no_grad)."""

    def __init__(self, mean: float = 0.0, std: float = 0.1, seed: int = 0):
        self._mean = mean
        self._std = std
        self._gen = torch.Generator().manual_seed(seed)

    def sample(self, algo: Any, x: torch.Tensor, step: int) -> torch.Tensor:
        action = algo.sample_action(x)
        noise = self._mean + self._std * torch.randn(action.shape, generator=self._gen)
        return (action + noise).clamp(-1.0, 1.0)


class ProportionalNormalNoise(Explorer):
    """Noise whose scale follows the pre-tanh action magnitude: saturated actions get pushed
    back towards the linear region more often. Needs the raw policy output, so it calls the
    policy module directly instead of algo.sample_action."""

    def __init__(self, std: float = 0.1, min_std: float = 0.02, seed: int = 0):
        self._std = std
        self._min_std = min_std
        self._gen = torch.Generator().manual_seed(seed)

    def sample(self, algo: Any, x: torch.Tensor, step: int) -> torch.Tensor:
        out = algo.impl.policy(x)
        scale = (self._std * out.mu.abs()).clamp(min=self._min_std)
        noise = scale * torch.randn(out.mu.shape, generator=self._gen)
        return (out.squashed_mu + noise).clamp(-1.0, 1.0)
