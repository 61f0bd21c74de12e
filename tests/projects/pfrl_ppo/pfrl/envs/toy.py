import numpy as np


class NoisyChainEnv(object):
    """Tiny gym-style env (gym is not installed here): walk along a chain of
    `n_states` cells towards the goal; observation is a noisy one-hot position."""

    def __init__(self, n_states=16, n_actions=4, max_steps=32, seed=0):
        self.n_states = n_states
        self.n_actions = n_actions
        self.max_steps = max_steps
        self.rng = np.random.RandomState(seed)
        self.pos = 0
        self.t = 0

    @property
    def observation_size(self):
        return self.n_states

    def _obs(self):
        obs = np.zeros(self.n_states, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs + 0.1 * self.rng.randn(self.n_states).astype(np.float32)

    def reset(self):
        self.pos = 0
        self.t = 0
        return self._obs()

    def step(self, action):
        self.t += 1
        move = {0: -1, 1: 1, 2: 2, 3: 0}[int(action)]
        self.pos = int(np.clip(self.pos + move, 0, self.n_states - 1))
        done = self.pos == self.n_states - 1
        reward = 1.0 if done else -0.01
        info = {"needs_reset": self.t >= self.max_steps}
        return self._obs(), reward, done, info
