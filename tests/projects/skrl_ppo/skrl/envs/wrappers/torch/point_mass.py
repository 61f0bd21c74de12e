from __future__ import annotations

import torch

from skrl.envs.wrappers.torch.base import Wrapper


class PointMassEnv(Wrapper):
    """Tiny vectorized continuous-control task: drive a 2-D point mass to the origin (auto-reset)."""

    def __init__(self, num_envs: int = 16, max_episode_length: int = 24, seed: int = 0) -> None:
        self.num_envs = num_envs
        self.observation_space = 4  # position (2) + velocity (2)
        self.action_space = 2
        self.max_episode_length = max_episode_length
        self._generator = torch.Generator().manual_seed(seed)
        self._pos = torch.zeros(num_envs, 2)
        self._vel = torch.zeros(num_envs, 2)
        self._t = torch.zeros(num_envs, 1, dtype=torch.int64)

    def _obs(self):
        return torch.cat([self._pos, self._vel], dim=-1)

    def _reset_idx(self, idx):
        self._pos[idx] = torch.rand(len(idx), 2, generator=self._generator) * 2 - 1
        self._vel[idx] = 0
        self._t[idx] = 0

    def reset(self):
        self._reset_idx(torch.arange(self.num_envs))
        return self._obs(), {}

    def step(self, actions):
        actions = actions.clamp(-1, 1)
        self._vel = 0.9 * self._vel + 0.1 * actions
        self._pos = self._pos + 0.1 * self._vel
        self._t += 1
        dist = self._pos.norm(dim=-1, keepdim=True)
        rewards = -dist - 0.01 * actions.pow(2).sum(-1, keepdim=True)
        terminated = dist > 2.0
        truncated = self._t >= self.max_episode_length
        done = (terminated | truncated).squeeze(-1).nonzero(as_tuple=False).flatten()
        infos = {"episode": {"mean_distance": dist.mean()}}
        next_obs = self._obs()
        if done.numel():
            self._reset_idx(done)
        return next_obs, rewards, terminated, truncated, infos
