from typing import Sequence

import torch
from torch import nn

__all__ = ["VectorEncoder", "VectorEncoderWithAction"]


def _mlp(in_size: int, hidden_units: Sequence[int]) -> nn.Sequential:
    layers = []
    for units in hidden_units:
        layers += [nn.Linear(in_size, units), nn.ReLU()]
        in_size = units
    return nn.Sequential(*layers)


class VectorEncoder(nn.Module):
    def __init__(self, observation_size: int, hidden_units: Sequence[int] = (64, 64)):
        super().__init__()
        self._layers = _mlp(observation_size, hidden_units)
        self.feature_size = hidden_units[-1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._layers(x)


class VectorEncoderWithAction(nn.Module):
    def __init__(self, observation_size: int, action_size: int, hidden_units: Sequence[int] = (64, 64)):
        super().__init__()
        self._layers = _mlp(observation_size + action_size, hidden_units)
        self.feature_size = hidden_units[-1]

    def forward(self, x: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        return self._layers(torch.cat([x, action], dim=1))
