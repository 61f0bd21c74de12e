from collections import deque
from typing import Deque

import torch
import torch.nn.functional as F

from .q_functions import ContinuousEnsembleQFunctionForwarder

__all__ = ["ActionGradientPenalty"]


class ActionGradientPenalty:
    """One-sided penalty on ||dQ(s, a)/da|| for dataset actions (keeps the critic smooth in
    the action space during offline-to-online fine-tuning). Remembers recent gradient norms
    so that the fitter can report them."""

    def __init__(self, coef: float, max_norm: float = 0.05, window: int = 10000):
        self._coef = coef
        self._max_norm = max_norm
        self._recent_norms: Deque[torch.Tensor] = deque(maxlen=window)

    def __call__(self, forwarder: ContinuousEnsembleQFunctionForwarder,
                 observations: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        actions = actions.detach().requires_grad_(True)
        q = forwarder.compute_expected_q(observations, actions, "mean")
        (grads,) = torch.autograd.grad(q.sum(), actions, create_graph=True)
        norms = grads.norm(2, dim=-1)
        self._recent_norms.append(norms)  # expect: TLK301
        return self._coef * F.relu(norms - self._max_norm).pow(2).mean()

    @property
    def recent_norm(self) -> float:
        if not self._recent_norms:
            return 0.0
        with torch.no_grad():
            return float(torch.cat(list(self._recent_norms)).mean())
