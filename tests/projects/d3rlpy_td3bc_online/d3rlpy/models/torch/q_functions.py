from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .encoders import VectorEncoderWithAction

__all__ = ["ContinuousMeanQFunction", "ContinuousEnsembleQFunctionForwarder"]


class ContinuousMeanQFunction(nn.Module):
    def __init__(self, encoder: VectorEncoderWithAction):
        super().__init__()
        self._encoder = encoder
        self._fc = nn.Linear(encoder.feature_size, 1)

    def forward(self, x: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        return self._fc(self._encoder(x, action))


def _reduce_ensemble(y: torch.Tensor, reduction: str) -> torch.Tensor:
    if reduction == "min":
        return y.min(dim=0).values
    if reduction == "max":
        return y.max(dim=0).values
    if reduction == "mean":
        return y.mean(dim=0)
    if reduction == "none":
        return y
    raise ValueError(f"invalid reduction type: {reduction}")


class ContinuousEnsembleQFunctionForwarder:
    def __init__(self, q_funcs: Sequence[ContinuousMeanQFunction], action_size: int):
        self._q_funcs = q_funcs
        self._action_size = action_size

    def compute_expected_q(self, x: torch.Tensor, action: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        values = torch.stack([q_func(x, action) for q_func in self._q_funcs])
        return _reduce_ensemble(values, reduction)

    def compute_error(self, observations, actions, rewards, target, terminals, gamma=0.99) -> torch.Tensor:
        td_sum = torch.tensor(0.0, dtype=torch.float32, device=observations.device)
        for q_func in self._q_funcs:
            value = q_func(observations, actions)
            y = rewards + gamma * target * (1 - terminals)
            td_sum = td_sum + F.mse_loss(value, y)
        return td_sum

    def compute_target(self, x: torch.Tensor, action: torch.Tensor, reduction: str = "min") -> torch.Tensor:
        values = torch.stack([q_func(x, action) for q_func in self._q_funcs])
        return _reduce_ensemble(values, reduction)
