"""A deterministic point-mass reaching task with vector observations (no gym needed)."""
import numpy as np


class Box:
    def __init__(self, low, high, shape, dtype=np.float32):
        self.low = np.full(shape, low, dtype)
        self.high = np.full(shape, high, dtype)
        self.shape = tuple(shape)
        self.dtype = dtype


class Dict:
    def __init__(self, spaces):
        self.spaces = spaces


class PointMass:
    def __init__(self, seed=0, time_limit=20):
        self._rng = np.random.RandomState(seed)
        self._time_limit = time_limit
        self._seed = seed
        self._episode = 0
        self.id = f"pointmass{seed}-{self._episode:04d}"
        self._pos = np.zeros(2, np.float32)
        self._vel = np.zeros(2, np.float32)
        self._goal = np.zeros(2, np.float32)
        self._t = 0

    @property
    def observation_space(self):
        return Dict({
            "obs": Box(-np.inf, np.inf, (6,)),
            "is_first": Box(0, 1, (), bool),
            "is_last": Box(0, 1, (), bool),
            "is_terminal": Box(0, 1, (), bool),
        })

    @property
    def action_space(self):
        return Box(-1.0, 1.0, (2,))

    def _obs(self, is_first=False, is_last=False):
        obs = np.concatenate([self._pos, self._vel, self._goal - self._pos]).astype(np.float32)
        return {"obs": obs, "is_first": is_first, "is_last": is_last, "is_terminal": False}

    def reset(self):
        self._pos = self._rng.uniform(-1, 1, 2).astype(np.float32)
        self._vel = np.zeros(2, np.float32)
        self._goal = self._rng.uniform(-1, 1, 2).astype(np.float32)
        self._t = 0
        self._episode += 1
        self.id = f"pointmass{self._seed}-{self._episode:04d}"
        return self._obs(is_first=True)

    def step(self, action):
        action = np.clip(np.asarray(action["action"], np.float32), -1, 1)
        self._vel = 0.9 * self._vel + 0.1 * action
        self._pos = self._pos + self._vel
        self._t += 1
        reward = float(-np.linalg.norm(self._goal - self._pos))
        done = self._t >= self._time_limit
        return self._obs(is_last=done), reward, done, {"discount": np.array(1.0, np.float32)}
