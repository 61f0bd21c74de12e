"""Tiny deterministic pixel environment standing in for dmc2gym.

A point mass moves on a plane; the observation is a rendered RGB frame and the
reward is the negative distance to a fixed goal (like point_mass_easy).
"""
import numpy as np


class PointMassPixels(object):
    def __init__(self, image_size=32, max_episode_steps=250, action_repeat=4):
        self.image_size = image_size
        self._max_episode_steps = max_episode_steps
        self.action_repeat = action_repeat
        self.observation_shape = (3, image_size, image_size)
        self.action_shape = (2,)
        self.action_low, self.action_high = -1.0, 1.0
        self._rng = np.random.RandomState(0)
        self._pos = np.zeros(2, dtype=np.float32)
        self._vel = np.zeros(2, dtype=np.float32)
        self._goal = np.array([0.5, -0.3], dtype=np.float32)
        self._t = 0

    def seed(self, seed):
        self._rng = np.random.RandomState(seed)

    def sample_action(self):
        return self._rng.uniform(-1.0, 1.0, size=self.action_shape).astype(np.float32)

    def _render(self):
        s = self.image_size
        img = np.zeros((3, s, s), dtype=np.uint8)
        for k, p in enumerate((self._pos, self._goal)):
            cx = int((p[0] + 1.0) * 0.5 * (s - 1))
            cy = int((p[1] + 1.0) * 0.5 * (s - 1))
            img[k, max(cy - 1, 0):cy + 2, max(cx - 1, 0):cx + 2] = 255
        img[2] = 40
        return img

    def reset(self):
        self._pos = self._rng.uniform(-0.8, 0.8, size=2).astype(np.float32)
        self._vel[:] = 0.0
        self._t = 0
        return self._render()

    def step(self, action):
        reward = 0.0
        for _ in range(self.action_repeat):
            self._vel = 0.9 * self._vel + 0.05 * np.asarray(action, dtype=np.float32)
            self._pos = np.clip(self._pos + self._vel, -1.0, 1.0)
            reward += float(-np.linalg.norm(self._pos - self._goal))
        self._t += 1
        done = self._t >= self._max_episode_steps
        return self._render(), reward, done, {}


def make_env(cfg):
    env = PointMassPixels(image_size=cfg.image_size,
                          max_episode_steps=cfg.max_episode_steps,
                          action_repeat=cfg.action_repeat)
    from utils import FrameStack
    env = FrameStack(env, k=cfg.frame_stack)
    env.seed(cfg.seed)
    assert env.action_low >= -1
    assert env.action_high <= 1
    return env
