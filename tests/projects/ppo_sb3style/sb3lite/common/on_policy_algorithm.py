from collections import deque
from typing import Optional

import torch as th

from sb3lite.common.buffers import RolloutBuffer
from sb3lite.common.callbacks import BaseCallback, CallbackList
from sb3lite.common.logger import Logger
from sb3lite.common.policies import ActorCriticPolicy
from sb3lite.common.utils import get_schedule_fn, safe_mean


class OnPolicyAlgorithm:
    """
    The base for On-Policy algorithms (ex: A2C/PPO).

    :param env: The (vectorised) environment to learn from
    :param learning_rate: The learning rate
    :param n_steps: The number of steps to run for each environment per update
    :param gamma: Discount factor
    :param gae_lambda: Factor for trade-off of bias vs variance for Generalized Advantage Estimator
    :param seed: Seed for the pseudo random generators
    """

    def __init__(self, env, learning_rate: float = 3e-4, n_steps: int = 32, gamma: float = 0.99,
                 gae_lambda: float = 0.95, ent_coef: float = 0.0, vf_coef: float = 0.5,
                 max_grad_norm: float = 0.5, stats_window_size: int = 100, seed: int = 0):
        self.env = env
        self.n_envs = env.num_envs
        self.learning_rate = learning_rate
        self.lr_schedule = get_schedule_fn(learning_rate)
        self.n_steps = n_steps
        self.gamma = gamma
        self.gae_lambda = gae_lambda
        self.ent_coef = ent_coef
        self.vf_coef = vf_coef
        self.max_grad_norm = max_grad_norm
        self.seed = seed
        self.num_timesteps = 0
        self._n_updates = 0
        self._last_obs = None
        self._last_episode_starts = None
        self.ep_info_buffer = deque(maxlen=stats_window_size)
        self.logger = Logger()
        self._setup_model()

    def _setup_model(self) -> None:
        th.manual_seed(self.seed)
        self.generator = th.Generator().manual_seed(self.seed)
        self.policy = ActorCriticPolicy(self.env.observation_dim, self.env.n_actions, lr=self.lr_schedule(1))
        self.rollout_buffer = RolloutBuffer(self.n_steps, self.env.observation_dim, gae_lambda=self.gae_lambda,
                                            gamma=self.gamma, n_envs=self.n_envs)

    def _update_info_buffer(self, infos) -> None:
        for info in infos:
            maybe_ep_info = info.get("episode")
            if maybe_ep_info is not None:
                self.ep_info_buffer.extend([maybe_ep_info])

    def collect_rollouts(self, env, callback: BaseCallback, rollout_buffer: RolloutBuffer, n_rollout_steps: int) -> bool:
        """
        Collect experiences using the current policy and fill a ``RolloutBuffer``.
        """
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        n_steps = 0
        rollout_buffer.reset()
        callback.on_rollout_start()

        while n_steps < n_rollout_steps:
            with th.no_grad():
                actions, values, log_probs = self.policy(self._last_obs)

            new_obs, rewards, dones, infos = env.step(actions)
            self.num_timesteps += env.num_envs

            # Give access to local variables
            callback.update_locals(locals())
            if not callback.on_step():
                return False

            self._update_info_buffer(infos)
            n_steps += 1

            # Handle timeout by bootstrapping with value function
            for idx, done in enumerate(dones.tolist()):
                if done and infos[idx].get("terminal_observation") is not None:
                    terminal_obs = env.normalize_obs(infos[idx]["terminal_observation"][None])
                    with th.no_grad():
                        terminal_value = self.policy.predict_values(terminal_obs)[0, 0]
                    rewards[idx] += self.gamma * terminal_value

            rollout_buffer.add(self._last_obs, actions, rewards, self._last_episode_starts, values, log_probs)
            self._last_obs = new_obs
            self._last_episode_starts = dones

        with th.no_grad():
            # Compute value for the last timestep
            values = self.policy.predict_values(new_obs)

        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.update_locals(locals())
        callback.on_rollout_end()
        return True

    def train(self) -> None:
        raise NotImplementedError

    def dump_logs(self, iteration: int) -> None:
        self.logger.record("time/iterations", iteration)
        if len(self.ep_info_buffer) > 0:
            self.logger.record("rollout/ep_rew_mean", safe_mean([ep_info["r"] for ep_info in self.ep_info_buffer]))
        self.logger.record("time/total_timesteps", self.num_timesteps)
        self.logger.dump(step=self.num_timesteps)

    def learn(self, total_timesteps: int, callback: Optional[BaseCallback] = None, log_interval: int = 1):
        iteration = 0
        callback = callback if callback is not None else CallbackList([])
        callback.init_callback(self)
        self.callback = callback
        self._last_obs = self.env.reset()
        self._last_episode_starts = th.ones(self.n_envs, dtype=th.bool)
        callback.on_training_start()

        while self.num_timesteps < total_timesteps:
            continue_training = self.collect_rollouts(self.env, callback, self.rollout_buffer, n_rollout_steps=self.n_steps)
            if not continue_training:
                break
            iteration += 1
            if log_interval is not None and iteration % log_interval == 0:
                self.dump_logs(iteration)
            self.train()

        callback.on_training_end()
        return self
