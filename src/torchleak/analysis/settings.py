"""Names a project adds to the built-in vocabulary (``[tool.torchleak]``, flake8 options)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    model_names: frozenset[str] = frozenset()
    loss_names: frozenset[str] = frozenset()
    per_batch_methods: frozenset[str] = frozenset()
