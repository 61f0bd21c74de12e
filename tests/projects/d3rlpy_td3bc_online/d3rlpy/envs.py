import torch

__all__ = ["PointMassEnv"]


class PointMassEnv:
    """Deterministic 2-D point mass: obs = (pos, vel, goal), action = force in [-1, 1]^2."""

    observation_shape = (6,)
    action_size = 2

    def __init__(self, seed: int = 0, max_episode_steps: int = 25):
        self._gen = torch.Generator().manual_seed(seed)
        self._max_episode_steps = max_episode_steps
        self._t = 0
        self._pos = torch.zeros(2)
        self._vel = torch.zeros(2)
        self._goal = torch.zeros(2)

    def _obs(self) -> torch.Tensor:
        return torch.cat([self._pos, self._vel, self._goal])

    def reset(self):
        self._t = 0
        self._pos = torch.rand(2, generator=self._gen) * 2 - 1
        self._vel = torch.zeros(2)
        self._goal = torch.rand(2, generator=self._gen) * 2 - 1
        return self._obs(), {}

    def sample_action(self) -> torch.Tensor:
        return torch.rand(2, generator=self._gen) * 2 - 1

    @torch.no_grad()
    def step(self, action):
        action = torch.as_tensor(action, dtype=torch.float32).clamp(-1.0, 1.0)
        self._vel = 0.9 * self._vel + 0.1 * action
        self._pos = (self._pos + 0.1 * self._vel).clamp(-1.5, 1.5)
        self._t += 1
        dist = torch.linalg.norm(self._pos - self._goal)
        reward = float(-dist)
        terminal = bool(dist < 0.05)
        truncated = self._t >= self._max_episode_steps
        return self._obs(), reward, terminal, truncated, {}
