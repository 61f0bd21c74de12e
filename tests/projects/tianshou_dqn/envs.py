"""Deterministic toy environment used by the training script (like
``test/base/env.py`` in tianshou)."""

import torch


class ChainEnv:
    """A chain of ``size`` cells.  Action 1 moves right, 0 moves left; reaching
    the right end gives reward 1 and ends the episode.  Observations are a
    one-hot position plus two smooth features."""

    action_num = 2

    def __init__(self, size: int = 8, max_step: int = 20, seed: int = 0) -> None:
        self.size = size
        self.max_step = max_step
        self.generator = torch.Generator().manual_seed(seed)
        self.pos = 0
        self.t = 0

    def seed(self, seed: int) -> None:
        self.generator.manual_seed(seed)

    @property
    def obs_dim(self) -> int:
        return self.size + 2

    def _obs(self) -> torch.Tensor:
        onehot = torch.zeros(self.size)
        onehot[self.pos] = 1.0
        x = self.pos / (self.size - 1)
        return torch.cat([onehot, torch.tensor([x, (self.t / self.max_step)])])

    def reset(self) -> torch.Tensor:
        self.pos = int(torch.randint(self.size // 2, (1,), generator=self.generator))
        self.t = 0
        return self._obs()

    def step(self, action: int):
        self.t += 1
        self.pos = max(0, min(self.size - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.size - 1 or self.t >= self.max_step
        rew = 1.0 if self.pos == self.size - 1 else -0.01
        return self._obs(), rew, done, {}
