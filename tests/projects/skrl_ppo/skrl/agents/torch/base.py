from __future__ import annotations

import collections
import copy
import dataclasses
import os
import statistics
from abc import ABC, abstractmethod
from typing import Any

import torch

from skrl import config
from skrl.utils.tensorboard import SummaryWriter


@dataclasses.dataclass(kw_only=True)
class ExperimentCfg:
    """Configuration for the experiment (saving checkpoints and logging data)."""

    directory: str = ""
    experiment_name: str = "ppo"
    write_interval: int | str = "auto"
    checkpoint_interval: int | str = "auto"


@dataclasses.dataclass(kw_only=True)
class AgentCfg(ABC):
    """Base class for the agent's configuration."""

    experiment: ExperimentCfg = dataclasses.field(default_factory=ExperimentCfg)

    def expand(self) -> None:
        pass


class Agent(ABC):
    def __init__(self, *, cfg: AgentCfg, models, memory=None, observation_space=None, state_space=None,
                 action_space=None, device=None) -> None:
        """Base class that represent a RL agent/algorithm."""
        self.training = False
        self.models = models
        self.memory = memory
        self.observation_space = observation_space
        self.state_space = state_space
        self.action_space = action_space
        self.device = config.torch.parse_device(device)
        self.cfg = cfg
        self.cfg.expand()

        # data tracking
        self.tracking_data = collections.defaultdict(list)
        self.write_interval = self.cfg.experiment.write_interval
        self._track_rewards = collections.deque(maxlen=100)
        self._track_timesteps = collections.deque(maxlen=100)
        self._cumulative_rewards = None
        self._cumulative_timesteps = None

        # checkpoint
        self.checkpoint_modules = {}
        self.checkpoint_interval = self.cfg.experiment.checkpoint_interval
        self.checkpoint_best_modules = {"timestep": 0, "reward": -(2**31), "saved": False, "modules": {}}

        directory = self.cfg.experiment.directory or os.path.join(os.getcwd(), "runs")
        self.experiment_dir = os.path.join(directory, self.cfg.experiment.experiment_name)

    def _empty_preprocessor(self, _input: Any, *args, **kwargs) -> Any:
        return _input

    def _get_internal_value(self, _module: Any) -> Any:
        return _module.state_dict() if hasattr(_module, "state_dict") else _module

    def init(self, *, trainer_cfg=None) -> None:
        """Initialize the agent (TensorBoard writer, checkpoint intervals)."""
        trainer_cfg = {} if trainer_cfg is None else dataclasses.asdict(trainer_cfg)
        if self.write_interval == "auto":
            self.write_interval = int(trainer_cfg.get("timesteps", 0) / 100)
        if self.write_interval > 0:
            self.writer = SummaryWriter(log_dir=self.experiment_dir)
        if self.checkpoint_interval == "auto":
            self.checkpoint_interval = int(trainer_cfg.get("timesteps", 0) / 10)

    def track_data(self, tag: str, value: float) -> None:
        """Track data to TensorBoard (only scalar data is supported)."""
        self.tracking_data[tag].append(value)

    def write_tracking_data(self, *, timestep: int, timesteps: int) -> None:
        for k, v in self.tracking_data.items():
            if k.endswith("(min)"):
                self.writer.add_scalar(tag=k, value=min(v), timestep=timestep)
            elif k.endswith("(max)"):
                self.writer.add_scalar(tag=k, value=max(v), timestep=timestep)
            else:
                self.writer.add_scalar(tag=k, value=statistics.fmean(float(x) for x in v), timestep=timestep)
        # reset data containers
        self._track_rewards.clear()
        self._track_timesteps.clear()
        self.tracking_data.clear()

    def write_checkpoint(self, *, timestep: int, timesteps: int) -> None:
        """Keep an in-memory copy of the checkpoint modules (no disk writes in this port)."""
        self.checkpoint_best_modules["last"] = {
            name: copy.deepcopy(self._get_internal_value(module)) for name, module in self.checkpoint_modules.items()
        }

    @abstractmethod
    def act(self, observations, states, *, timestep: int, timesteps: int):
        pass

    def record_transition(self, *, observations, states, actions, rewards, next_observations, next_states,
                          terminated, truncated, infos, timestep: int, timesteps: int) -> None:
        """Record an environment transition (episode statistics only, the memory is filled by the algorithm)."""
        if self.write_interval > 0:
            if self._cumulative_rewards is None:
                self._cumulative_rewards = torch.zeros_like(rewards, dtype=torch.float32)
                self._cumulative_timesteps = torch.zeros_like(rewards, dtype=torch.int32)

            self._cumulative_rewards.add_(rewards)
            self._cumulative_timesteps.add_(1)

            # check ended episodes
            finished_episodes = (terminated + truncated).nonzero(as_tuple=False)
            if finished_episodes.numel():
                self._track_rewards.extend(self._cumulative_rewards[finished_episodes][:, 0].reshape(-1).tolist())
                self._track_timesteps.extend(self._cumulative_timesteps[finished_episodes][:, 0].reshape(-1).tolist())
                self._cumulative_rewards[finished_episodes] = 0
                self._cumulative_timesteps[finished_episodes] = 0

            # record data
            self.tracking_data["Reward / Instantaneous reward (max)"].append(torch.max(rewards).item())
            self.tracking_data["Reward / Instantaneous reward (min)"].append(torch.min(rewards).item())
            self.tracking_data["Reward / Instantaneous reward (mean)"].append(torch.mean(rewards).item())
            if len(self._track_rewards):
                self.tracking_data["Reward / Total reward (mean)"].append(statistics.fmean(self._track_rewards))
                self.tracking_data["Episode / Total timesteps (mean)"].append(statistics.fmean(self._track_timesteps))

    def enable_training_mode(self, enabled: bool = True, *, apply_to_models: bool = False) -> None:
        self.training = enabled
        if apply_to_models:
            self.enable_models_training_mode(enabled)

    def enable_models_training_mode(self, enabled: bool = True) -> None:
        for model in self.models.values():
            if model is not None:
                model.enable_training_mode(enabled)

    @abstractmethod
    def pre_interaction(self, *, timestep: int, timesteps: int) -> None:
        pass

    @abstractmethod
    def post_interaction(self, *, timestep: int, timesteps: int) -> None:
        timestep += 1
        # update best models and write checkpoints
        if timestep > 1 and self.checkpoint_interval > 0 and not timestep % self.checkpoint_interval:
            self.write_checkpoint(timestep=timestep, timesteps=timesteps)
        # write to tensorboard
        if timestep > 1 and self.write_interval > 0 and not timestep % self.write_interval:
            self.write_tracking_data(timestep=timestep, timesteps=timesteps)

    @abstractmethod
    def update(self, *, timestep: int, timesteps: int) -> None:
        pass
