"""A deterministic vectorised toy task (torch only) with the VecEnv step API."""
import torch as th

from sb3lite.common.running_mean_std import RunningMeanStd


class GoToTargetVecEnv:
    """1-D point mass that must reach a target. Discrete(3) actions: push left, no-op, push right.

    obs = (position, velocity, target), reward = -|position - target|, episodes last ``max_steps``.
    """

    observation_dim = 3
    n_actions = 3

    def __init__(self, num_envs: int = 8, max_steps: int = 32, seed: int = 0):
        self.num_envs = num_envs
        self.max_steps = max_steps
        self.generator = th.Generator().manual_seed(seed)
        self.state = th.zeros(num_envs, 3)
        self.t = th.zeros(num_envs, dtype=th.long)
        self.episode_returns = th.zeros(num_envs)

    def _reset_idx(self, idx: th.Tensor) -> None:
        n = int(idx.numel())
        self.state[idx, 0] = th.rand(n, generator=self.generator) * 2 - 1
        self.state[idx, 1] = 0.0
        self.state[idx, 2] = th.rand(n, generator=self.generator) * 2 - 1
        self.t[idx] = 0
        self.episode_returns[idx] = 0.0

    def reset(self) -> th.Tensor:
        self._reset_idx(th.arange(self.num_envs))
        return self.state.clone()

    def step(self, actions: th.Tensor):
        force = (actions.float() - 1.0) * 0.05
        self.state[:, 1] = 0.9 * self.state[:, 1] + force
        self.state[:, 0] = (self.state[:, 0] + self.state[:, 1]).clamp(-2, 2)
        self.t += 1
        rewards = -(self.state[:, 0] - self.state[:, 2]).abs()
        self.episode_returns += rewards
        dones = self.t >= self.max_steps
        infos = [{} for _ in range(self.num_envs)]
        done_idx = th.nonzero(dones).flatten()
        for i in done_idx.tolist():
            infos[i]["terminal_observation"] = self.state[i].clone()
            infos[i]["episode"] = {"r": float(self.episode_returns[i]), "l": int(self.t[i])}
        if len(done_idx):
            self._reset_idx(done_idx)
        return self.state.clone(), rewards, dones, infos


class VecNormalize:
    """Observation normalisation wrapper (running statistics of raw observations)."""

    def __init__(self, venv, clip_obs: float = 10.0, epsilon: float = 1e-8):
        self.venv = venv
        self.num_envs = venv.num_envs
        self.observation_dim = venv.observation_dim
        self.n_actions = venv.n_actions
        self.obs_rms = RunningMeanStd(shape=(venv.observation_dim,))
        self.clip_obs = clip_obs
        self.epsilon = epsilon
        self.training = True

    def normalize_obs(self, obs: th.Tensor) -> th.Tensor:
        return ((obs - self.obs_rms.mean) / th.sqrt(self.obs_rms.var + self.epsilon)).clamp(-self.clip_obs, self.clip_obs)

    def reset(self) -> th.Tensor:
        obs = self.venv.reset()
        if self.training:
            self.obs_rms.update(obs)
        return self.normalize_obs(obs)

    def step(self, actions: th.Tensor):
        obs, rewards, dones, infos = self.venv.step(actions)
        if self.training:
            self.obs_rms.update(obs)
        return self.normalize_obs(obs), rewards, dones, infos
