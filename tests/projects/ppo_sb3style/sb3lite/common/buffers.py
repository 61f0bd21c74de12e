from typing import Generator, NamedTuple

import torch as th


class RolloutBufferSamples(NamedTuple):
    observations: th.Tensor
    actions: th.Tensor
    old_values: th.Tensor
    old_log_prob: th.Tensor
    advantages: th.Tensor
    returns: th.Tensor


class RolloutBuffer:
    """
    Rollout buffer used in on-policy algorithms like A2C/PPO.
    It corresponds to ``buffer_size`` transitions collected
    using the current policy.

    :param buffer_size: Max number of element in the buffer
    :param obs_dim: Observation dimension
    :param gae_lambda: Factor for trade-off of bias vs variance for Generalized Advantage Estimator
    :param gamma: Discount factor
    :param n_envs: Number of parallel environments
    """

    def __init__(self, buffer_size: int, obs_dim: int, gae_lambda: float = 0.95, gamma: float = 0.99, n_envs: int = 1):
        self.buffer_size = buffer_size
        self.obs_dim = obs_dim
        self.gae_lambda = gae_lambda
        self.gamma = gamma
        self.n_envs = n_envs
        self.reset()

    def reset(self) -> None:
        self.observations = th.zeros(self.buffer_size, self.n_envs, self.obs_dim)
        self.actions = th.zeros(self.buffer_size, self.n_envs, dtype=th.long)
        self.rewards = th.zeros(self.buffer_size, self.n_envs)
        self.returns = th.zeros(self.buffer_size, self.n_envs)
        self.episode_starts = th.zeros(self.buffer_size, self.n_envs)
        self.values = th.zeros(self.buffer_size, self.n_envs)
        self.log_probs = th.zeros(self.buffer_size, self.n_envs)
        self.advantages = th.zeros(self.buffer_size, self.n_envs)
        self.generator_ready = False
        self.pos = 0
        self.full = False

    def compute_returns_and_advantage(self, last_values: th.Tensor, dones: th.Tensor) -> None:
        """
        Post-processing step: compute the lambda-return (TD(lambda) estimate)
        and GAE(lambda) advantage.
        """
        last_values = last_values.clone().flatten()
        last_gae_lam = th.zeros(self.n_envs)
        for step in reversed(range(self.buffer_size)):
            if step == self.buffer_size - 1:
                next_non_terminal = 1.0 - dones.float()
                next_values = last_values
            else:
                next_non_terminal = 1.0 - self.episode_starts[step + 1]
                next_values = self.values[step + 1]
            delta = self.rewards[step] + self.gamma * next_values * next_non_terminal - self.values[step]
            last_gae_lam = delta + self.gamma * self.gae_lambda * next_non_terminal * last_gae_lam
            self.advantages[step] = last_gae_lam
        self.returns = self.advantages + self.values

    def add(self, obs, action, reward, episode_start, value, log_prob) -> None:
        self.observations[self.pos] = obs
        self.actions[self.pos] = action
        self.rewards[self.pos] = reward
        self.episode_starts[self.pos] = episode_start.float()
        self.values[self.pos] = value.flatten()
        self.log_probs[self.pos] = log_prob
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    def get(self, batch_size: int, generator: th.Generator) -> Generator[RolloutBufferSamples, None, None]:
        assert self.full, ""
        n = self.buffer_size * self.n_envs
        indices = th.randperm(n, generator=generator)
        flat = [
            t.reshape(n, *t.shape[2:])
            for t in (self.observations, self.actions, self.values, self.log_probs, self.advantages, self.returns)
        ]
        start_idx = 0
        while start_idx < n:
            idx = indices[start_idx : start_idx + batch_size]
            yield RolloutBufferSamples(*(t[idx] for t in flat))
            start_idx += batch_size
