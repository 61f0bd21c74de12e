from __future__ import annotations

import dataclasses
from typing import Callable

from skrl.agents.torch import AgentCfg


@dataclasses.dataclass(kw_only=True)
class PPO_CFG(AgentCfg):
    rollouts: int = 16
    learning_epochs: int = 8
    mini_batches: int = 2
    discount_factor: float = 0.99
    gae_lambda: float = 0.95
    learning_rate: float | tuple = 1e-3
    learning_rate_scheduler: type | tuple | None = None
    learning_rate_scheduler_kwargs: dict | tuple = dataclasses.field(default_factory=dict)
    observation_preprocessor: type | None = None
    observation_preprocessor_kwargs: dict = dataclasses.field(default_factory=dict)
    state_preprocessor: type | None = None
    state_preprocessor_kwargs: dict = dataclasses.field(default_factory=dict)
    value_preprocessor: type | None = None
    value_preprocessor_kwargs: dict = dataclasses.field(default_factory=dict)
    random_timesteps: int = 0
    learning_starts: int = 0
    grad_norm_clip: float = 0.5
    ratio_clip: float = 0.2
    value_clip: float = 0.2
    entropy_loss_scale: float = 0.0
    value_loss_scale: float = 2.5
    kl_threshold: float = 0.0
    time_limit_bootstrap: bool = False
    rewards_shaper: Callable | None = None
    mixed_precision: bool = False

    def expand(self) -> None:
        super().expand()
        if not isinstance(self.learning_rate, (tuple, list)):
            self.learning_rate = (self.learning_rate, self.learning_rate)
        if self.learning_rate_scheduler is None:
            self.learning_rate_scheduler = (None, None)
        elif not isinstance(self.learning_rate_scheduler, (tuple, list)):
            self.learning_rate_scheduler = (self.learning_rate_scheduler, self.learning_rate_scheduler)
        if not isinstance(self.learning_rate_scheduler_kwargs, (tuple, list)):
            self.learning_rate_scheduler_kwargs = (self.learning_rate_scheduler_kwargs,
                                                   self.learning_rate_scheduler_kwargs)
