from __future__ import annotations

import dataclasses

import torch

from skrl.utils import ScopedTimer


@dataclasses.dataclass(kw_only=True)
class TrainerCfg:
    timesteps: int = 100000
    headless: bool = True
    disable_progressbar: bool = True
    close_environment_at_exit: bool = False
    environment_info: str = "episode"
    stochastic_evaluation: bool = False


class Trainer:
    def __init__(self, *, env, agents, scopes=None, cfg: TrainerCfg) -> None:
        """Base class for trainers."""
        self.cfg = cfg
        self.env = env
        self.agents = agents
        self.scopes = scopes if scopes is not None else []
        self.num_simultaneous_agents = 1

    def train(self) -> None:
        """Train a single agent: pre-interaction, act, env step, record, post-interaction, reset."""
        # reset the environments
        observations, infos = self.env.reset()
        states = self.env.state()

        for timestep in range(self.cfg.timesteps):

            # pre-interaction
            self.agents.pre_interaction(timestep=timestep, timesteps=self.cfg.timesteps)

            with torch.no_grad():
                # compute actions
                with ScopedTimer() as timer:
                    actions, outputs = self.agents.act(
                        observations, states, timestep=timestep, timesteps=self.cfg.timesteps
                    )
                    self.agents.track_data("Stats / Inference time (ms)", timer.elapsed_time_ms)

                # step the environments
                with ScopedTimer() as timer:
                    next_observations, rewards, terminated, truncated, infos = self.env.step(actions)
                    next_states = self.env.state()
                    self.agents.track_data("Stats / Env stepping time (ms)", timer.elapsed_time_ms)

                # record the environments' transitions
                self.agents.record_transition(
                    observations=observations,
                    states=states,
                    actions=actions,
                    rewards=rewards,
                    next_observations=next_observations,
                    next_states=next_states,
                    terminated=terminated,
                    truncated=truncated,
                    infos=infos,
                    timestep=timestep,
                    timesteps=self.cfg.timesteps,
                )

                # log environment info
                if self.cfg.environment_info in infos:
                    for k, v in infos[self.cfg.environment_info].items():
                        if isinstance(v, torch.Tensor) and v.numel() == 1:
                            self.agents.track_data(k if "/" in k else f"Info / {k}", v.item())

            # post-interaction
            self.agents.post_interaction(timestep=timestep, timesteps=self.cfg.timesteps)

            # reset environments (parallel/vectorized environments auto-reset)
            observations = next_observations
            states = next_states

    def eval(self) -> None:
        observations, infos = self.env.reset()
        states = self.env.state()
        for timestep in range(self.cfg.timesteps):
            with torch.no_grad():
                actions, outputs = self.agents.act(observations, states, timestep=timestep,
                                                   timesteps=self.cfg.timesteps)
                actions = actions if self.cfg.stochastic_evaluation else outputs.get("mean_actions", actions)
                observations, rewards, terminated, truncated, infos = self.env.step(actions)
                states = self.env.state()
