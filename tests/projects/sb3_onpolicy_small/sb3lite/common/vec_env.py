"""A tiny vectorized environment (DummyVecEnv-like) with a deterministic task."""

import numpy as np


class PointChainEnv:
    """
    1-D point that must be pushed to the origin.

    obs = (position, velocity, target_side, time_fraction); two discrete
    actions push left or right. Episodes last ``max_steps`` steps.
    """

    n_actions = 2
    obs_dim = 4

    def __init__(self, seed: int = 0, max_steps: int = 20):
        self.rng = np.random.RandomState(seed)
        self.max_steps = max_steps
        self.t = 0
        self.pos = 0.0
        self.vel = 0.0

    def reset(self) -> np.ndarray:
        self.t = 0
        self.pos = float(self.rng.uniform(-1.0, 1.0))
        self.vel = 0.0
        return self._obs()

    def _obs(self) -> np.ndarray:
        return np.array([self.pos, self.vel, np.sign(self.pos), self.t / self.max_steps], dtype=np.float32)

    def step(self, action: int):
        force = -0.1 if int(action) == 0 else 0.1
        self.vel = 0.8 * self.vel + force
        self.pos = float(np.clip(self.pos + self.vel, -2.0, 2.0))
        self.t += 1
        reward = -abs(self.pos)
        done = self.t >= self.max_steps
        info = {}
        if done:
            info["episode"] = {"r": reward, "l": self.t}
            info["terminal_observation"] = self._obs()
            info["TimeLimit.truncated"] = True
        return self._obs(), reward, done, info


class DummyVecEnv:
    """Runs ``n_envs`` environments sequentially in the current process."""

    def __init__(self, n_envs: int = 2, seed: int = 0):
        self.envs = [PointChainEnv(seed=seed + i) for i in range(n_envs)]
        self.num_envs = n_envs
        self.n_actions = PointChainEnv.n_actions
        self.obs_dim = PointChainEnv.obs_dim

    def reset(self) -> np.ndarray:
        return np.stack([env.reset() for env in self.envs])

    def step(self, actions: np.ndarray):
        obs, rews, dones, infos = [], [], [], []
        for env, action in zip(self.envs, actions):
            o, r, d, info = env.step(action)
            if d:
                o = env.reset()
            obs.append(o)
            rews.append(r)
            dones.append(d)
            infos.append(info)
        return np.stack(obs), np.array(rews, dtype=np.float32), np.array(dones), infos
