"""Abstract base classes for RL algorithms."""

import time
from abc import ABC, abstractmethod
from collections import deque
from typing import Any

import numpy as np
import torch as th

from sb3lite.common import logger as sb3_logger
from sb3lite.common.type_aliases import Schedule
from sb3lite.common.utils import get_device, get_schedule_fn, set_random_seed, update_learning_rate
from sb3lite.common.vec_env import DummyVecEnv


class BaseAlgorithm(ABC):
    """
    The base of RL algorithms

    :param policy: The policy class
    :param env: The environment to learn from
    :param learning_rate: learning rate for the optimizer,
        it can be a function of the current progress remaining (from 1 to 0)
    :param stats_window_size: Window size for the rollout logging
    :param verbose: Verbosity level
    :param device: Device on which the code should run.
    :param seed: Seed for the pseudo random generators
    """

    def __init__(self, policy: type, env: DummyVecEnv, learning_rate: float | Schedule,
                 policy_kwargs: dict[str, Any] | None = None, stats_window_size: int = 100,
                 verbose: int = 0, device: th.device | str = "auto", seed: int | None = None):
        self.policy_class = policy
        self.device = get_device(device)
        self.verbose = verbose
        self.policy_kwargs = {} if policy_kwargs is None else policy_kwargs
        self.num_timesteps = 0
        self._total_timesteps = 0
        self._num_timesteps_at_start = 0
        self.seed = seed
        self.learning_rate = learning_rate
        self._last_obs: np.ndarray | None = None
        self._last_episode_starts: np.ndarray | None = None
        self._current_progress_remaining = 1.0
        self._stats_window_size = stats_window_size
        self.ep_info_buffer: deque | None = None
        self._n_updates = 0
        self._logger: sb3_logger.Logger | None = None

        self.env = env
        self.n_envs = env.num_envs
        self.obs_dim = env.obs_dim
        self.n_actions = env.n_actions

    @abstractmethod
    def _setup_model(self) -> None:
        """Create networks, buffer and optimizers."""

    def _setup_lr_schedule(self) -> None:
        """Transform to callable if needed."""
        self.lr_schedule = get_schedule_fn(self.learning_rate)

    def set_random_seed(self, seed: int | None = None) -> None:
        if seed is None:
            return
        set_random_seed(seed)

    def _update_current_progress_remaining(self, num_timesteps: int, total_timesteps: int) -> None:
        """
        Compute current progress remaining (starts from 1 and ends to 0)
        """
        self._current_progress_remaining = 1.0 - float(num_timesteps) / float(total_timesteps)

    def _update_learning_rate(self, optimizers: list[th.optim.Optimizer] | th.optim.Optimizer) -> None:
        """
        Update the optimizers learning rate using the current learning rate schedule
        and the current progress remaining (from 1 to 0).
        """
        self.logger.record("train/learning_rate", self.lr_schedule(self._current_progress_remaining))

        if not isinstance(optimizers, list):
            optimizers = [optimizers]
        for optimizer in optimizers:
            update_learning_rate(optimizer, self.lr_schedule(self._current_progress_remaining))

    def _update_info_buffer(self, infos: list[dict[str, Any]], dones: np.ndarray | None = None) -> None:
        """
        Retrieve reward, episode length, episode success and update the buffer
        if using Monitor wrapper or a GoalEnv.
        """
        assert self.ep_info_buffer is not None
        for info in infos:
            maybe_ep_info = info.get("episode")
            if maybe_ep_info is not None:
                self.ep_info_buffer.extend([maybe_ep_info])

    @property
    def logger(self) -> sb3_logger.Logger:
        """Getter for the logger object."""
        return self._logger

    def set_logger(self, logger: sb3_logger.Logger) -> None:
        self._logger = logger

    def _setup_learn(self, total_timesteps: int, reset_num_timesteps: bool = True) -> int:
        """
        Initialize different variables needed for training.
        """
        self.start_time = time.time_ns()

        if self.ep_info_buffer is None or reset_num_timesteps:
            # Initialize buffers if they don't exist, or reinitialize if resetting counters
            self.ep_info_buffer = deque(maxlen=self._stats_window_size)

        if reset_num_timesteps:
            self.num_timesteps = 0
            self._episode_num = 0
        else:
            # Make sure training timesteps are ahead of the internal counter
            total_timesteps += self.num_timesteps
        self._total_timesteps = total_timesteps
        self._num_timesteps_at_start = self.num_timesteps

        # Avoid resetting the environment when calling ``.learn()`` consecutive times
        if reset_num_timesteps or self._last_obs is None:
            self._last_obs = self.env.reset()
            self._last_episode_starts = np.ones((self.env.num_envs,), dtype=bool)

        if self._logger is None:
            self._logger = sb3_logger.configure()

        return total_timesteps
