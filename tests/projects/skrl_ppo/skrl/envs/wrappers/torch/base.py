from __future__ import annotations

import torch


class Wrapper:
    """Vectorized environment wrapper interface (observations are ``(num_envs, obs)`` tensors)."""

    num_envs: int = 1
    num_agents: int = 1
    observation_space = None
    state_space = None
    action_space = None
    device = torch.device("cpu")

    def reset(self):
        raise NotImplementedError

    def step(self, actions):
        raise NotImplementedError

    def state(self):
        return None

    def render(self, *args, **kwargs):
        return None

    def close(self) -> None:
        pass
