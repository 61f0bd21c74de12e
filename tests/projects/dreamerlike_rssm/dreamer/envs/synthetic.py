"""Deterministic toy continuous-control environment with B parallel copies (CPU)."""
from typing import NamedTuple

import torch


class EnvInfo(NamedTuple):
    action: torch.Tensor  # the (clipped) action that was actually applied


class EnvStep(NamedTuple):
    observation: torch.Tensor
    reward: torch.Tensor
    done: torch.Tensor
    env_info: EnvInfo


class SyntheticEnv:
    def __init__(self, batch_B=2, obs_size=16, action_size=2, seed=0):
        self.B = batch_B
        self.obs_size = obs_size
        self.action_size = action_size
        g = torch.Generator().manual_seed(seed)
        self._g = g
        self._A = torch.randn(obs_size, obs_size, generator=g) / obs_size ** 0.5
        self._Bm = torch.randn(action_size, obs_size, generator=g)
        self._target = torch.randn(action_size, generator=g).tanh()
        self._state = None

    def reset(self):
        self._state = torch.randn(self.B, self.obs_size, generator=self._g)
        return self._state.clone()

    def step(self, action):
        a = action.detach().clamp(-1.0, 1.0)
        noise = 0.05 * torch.randn(self.B, self.obs_size, generator=self._g)
        self._state = torch.tanh(self._state @ self._A + a @ self._Bm) + noise
        reward = -((a - self._target) ** 2).sum(-1)
        done = torch.zeros(self.B, dtype=torch.bool)
        return EnvStep(self._state.clone(), reward, done, EnvInfo(action=a))

    def random_action(self):
        return torch.rand(self.B, self.action_size, generator=self._g) * 2 - 1
