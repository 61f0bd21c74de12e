from __future__ import annotations

from typing import Any

import torch


class DeterministicMixin:
    def __init__(self, *, clip_actions: bool = False, role: str = "") -> None:
        """Deterministic mixin model (deterministic model)."""
        self._d_clip_actions = clip_actions

    def act(self, inputs: dict[str, Any], *, role: str = ""):
        actions, outputs = self.compute(inputs, role)
        if self._d_clip_actions:
            actions = torch.clamp(actions, min=-1.0, max=1.0)
        return actions, outputs
