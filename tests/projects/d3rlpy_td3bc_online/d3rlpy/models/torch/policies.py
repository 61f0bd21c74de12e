from typing import NamedTuple, Optional

import torch
from torch import nn

from .encoders import VectorEncoder

__all__ = ["ActionOutput", "DeterministicPolicy"]


class ActionOutput(NamedTuple):
    mu: torch.Tensor
    squashed_mu: torch.Tensor
    logstd: Optional[torch.Tensor]


class DeterministicPolicy(nn.Module):
    def __init__(self, encoder: VectorEncoder, action_size: int):
        super().__init__()
        self._encoder = encoder
        self._fc = nn.Linear(encoder.feature_size, action_size)

    def forward(self, x: torch.Tensor) -> ActionOutput:
        h = self._encoder(x)
        mu = self._fc(h)
        return ActionOutput(mu, torch.tanh(mu), logstd=None)
