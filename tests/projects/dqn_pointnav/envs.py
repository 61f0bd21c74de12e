"""A tiny continuous navigation task with discrete actions (stand-in for an Atari env)."""
import random

import torch


class PointNavEnv(object):
    ACTIONS = torch.tensor([[1., 0.], [-1., 0.], [0., 1.], [0., -1.], [0., 0.]])

    def __init__(self, max_steps=50, step_size=0.1, seed=0):
        self.max_steps = max_steps
        self.step_size = step_size
        self.rng = random.Random(seed)
        self.n_actions = len(self.ACTIONS)
        self.obs_dim = 4

    def _obs(self):
        return torch.cat([self.pos, self.goal - self.pos])

    def reset(self):
        self.t = 0
        self.pos = torch.tensor([self.rng.uniform(-1, 1), self.rng.uniform(-1, 1)])
        self.goal = torch.tensor([self.rng.uniform(-1, 1), self.rng.uniform(-1, 1)])
        return self._obs()

    def step(self, action):
        self.t += 1
        self.pos = (self.pos + self.step_size * self.ACTIONS[action]).clamp(-1.5, 1.5)
        dist = float((self.goal - self.pos).norm())
        reward = -dist
        done = dist < 0.1 or self.t >= self.max_steps
        return self._obs(), reward, done

    def sample_action(self):
        return self.rng.randrange(self.n_actions)
