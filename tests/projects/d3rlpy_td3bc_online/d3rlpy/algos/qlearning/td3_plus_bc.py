import copy
import dataclasses

import torch
from torch import nn

from ...models.torch import (
    ActionGradientPenalty,
    ContinuousEnsembleQFunctionForwarder,
    ContinuousMeanQFunction,
    DeterministicPolicy,
    VectorEncoder,
    VectorEncoderWithAction,
)
from .base import QLearningAlgoBase
from .torch.td3_impl import TD3Modules
from .torch.td3_plus_bc_impl import TD3PlusBCImpl

__all__ = ["TD3PlusBCConfig", "TD3PlusBC"]


@dataclasses.dataclass()
class TD3PlusBCConfig:
    batch_size: int = 32
    gamma: float = 0.99
    actor_learning_rate: float = 3e-4
    critic_learning_rate: float = 3e-4
    tau: float = 0.005
    n_critics: int = 2
    hidden_units: tuple = (64, 64)
    target_smoothing_sigma: float = 0.2
    target_smoothing_clip: float = 0.5
    alpha: float = 2.5
    q_scale_momentum: float = 0.9
    update_actor_interval: int = 2
    critic_action_gp: float = 0.1

    def create(self, device: str = "cpu:0") -> "TD3PlusBC":
        return TD3PlusBC(self, device)


class TD3PlusBC(QLearningAlgoBase):
    def inner_create_impl(self, observation_shape, action_size: int) -> None:
        cfg = self._config
        obs_size = observation_shape[0]
        policy = DeterministicPolicy(VectorEncoder(obs_size, cfg.hidden_units), action_size)
        targ_policy = copy.deepcopy(policy)
        q_funcs = nn.ModuleList(
            [ContinuousMeanQFunction(VectorEncoderWithAction(obs_size, action_size, cfg.hidden_units))
             for _ in range(cfg.n_critics)]
        )
        targ_q_funcs = copy.deepcopy(q_funcs)
        actor_optim = torch.optim.Adam(policy.parameters(), lr=cfg.actor_learning_rate)
        critic_optim = torch.optim.Adam(q_funcs.parameters(), lr=cfg.critic_learning_rate)
        modules = TD3Modules(
            policy=policy, q_funcs=q_funcs, targ_q_funcs=targ_q_funcs,
            actor_optim=actor_optim, critic_optim=critic_optim, targ_policy=targ_policy,
        )
        gp = ActionGradientPenalty(cfg.critic_action_gp) if cfg.critic_action_gp > 0 else None
        self._impl = TD3PlusBCImpl(
            observation_shape=observation_shape,
            action_size=action_size,
            modules=modules,
            q_func_forwarder=ContinuousEnsembleQFunctionForwarder(q_funcs, action_size),
            targ_q_func_forwarder=ContinuousEnsembleQFunctionForwarder(targ_q_funcs, action_size),
            gamma=cfg.gamma,
            tau=cfg.tau,
            target_smoothing_sigma=cfg.target_smoothing_sigma,
            target_smoothing_clip=cfg.target_smoothing_clip,
            alpha=cfg.alpha,
            q_scale_momentum=cfg.q_scale_momentum,
            update_actor_interval=cfg.update_actor_interval,
            gradient_penalty=gp,
            device=self._device,
        )
