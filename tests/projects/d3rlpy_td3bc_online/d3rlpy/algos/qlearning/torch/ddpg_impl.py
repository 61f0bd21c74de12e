import dataclasses
from abc import ABCMeta, abstractmethod
from typing import Dict, Optional

import torch
from torch import nn
from torch.optim import Optimizer

from ....dataclass_utils import asdict_as_float
from ....models.torch import (
    ActionGradientPenalty,
    ActionOutput,
    ContinuousEnsembleQFunctionForwarder,
    DeterministicPolicy,
)
from ....torch_utility import Modules, TorchMiniBatch, hard_sync, soft_sync
from ..base import QLearningAlgoImplBase

__all__ = ["DDPGBaseImpl", "DDPGBaseModules", "DDPGBaseActorLoss", "DDPGBaseCriticLoss"]


@dataclasses.dataclass(frozen=True)
class DDPGBaseModules(Modules):
    policy: DeterministicPolicy
    q_funcs: nn.ModuleList
    targ_q_funcs: nn.ModuleList
    actor_optim: Optimizer
    critic_optim: Optimizer


@dataclasses.dataclass(frozen=True)
class DDPGBaseActorLoss:
    actor_loss: torch.Tensor


@dataclasses.dataclass(frozen=True)
class DDPGBaseCriticLoss:
    critic_loss: torch.Tensor
    td_loss: torch.Tensor
    gradient_penalty: torch.Tensor


class DDPGBaseImpl(QLearningAlgoImplBase, metaclass=ABCMeta):
    _modules: DDPGBaseModules

    def __init__(
        self,
        observation_shape,
        action_size: int,
        modules: DDPGBaseModules,
        q_func_forwarder: ContinuousEnsembleQFunctionForwarder,
        targ_q_func_forwarder: ContinuousEnsembleQFunctionForwarder,
        gamma: float,
        tau: float,
        gradient_penalty: Optional[ActionGradientPenalty],
        device: str,
    ):
        super().__init__(observation_shape, action_size, modules, device)
        self._gamma = gamma
        self._tau = tau
        self._q_func_forwarder = q_func_forwarder
        self._targ_q_func_forwarder = targ_q_func_forwarder
        self._gradient_penalty = gradient_penalty
        hard_sync(self._modules.targ_q_funcs, self._modules.q_funcs)

    def compute_critic_grad(self, batch: TorchMiniBatch) -> DDPGBaseCriticLoss:
        self._modules.critic_optim.zero_grad()
        q_tpn = self.compute_target(batch)
        loss = self.compute_critic_loss(batch, q_tpn)
        loss.critic_loss.backward()
        return loss

    def update_critic(self, batch: TorchMiniBatch) -> Dict[str, float]:
        loss = self.compute_critic_grad(batch)
        self._modules.critic_optim.step()
        return asdict_as_float(loss)

    def compute_critic_loss(self, batch: TorchMiniBatch, q_tpn: torch.Tensor) -> DDPGBaseCriticLoss:
        td_loss = self._q_func_forwarder.compute_error(
            observations=batch.observations,
            actions=batch.actions,
            rewards=batch.rewards,
            target=q_tpn,
            terminals=batch.terminals,
            gamma=self._gamma ** batch.intervals,
        )
        if self._gradient_penalty is not None:
            gp = self._gradient_penalty(self._q_func_forwarder, batch.observations, batch.actions)
        else:
            gp = torch.zeros((), device=td_loss.device)
        # gp was built with create_graph=True and is backwarded right here, with the TD loss
        return DDPGBaseCriticLoss(critic_loss=td_loss + gp, td_loss=td_loss, gradient_penalty=gp)

    def compute_actor_grad(self, batch: TorchMiniBatch) -> DDPGBaseActorLoss:
        action = self._modules.policy(batch.observations)
        self._modules.actor_optim.zero_grad()
        loss = self.compute_actor_loss(batch, action)
        loss.actor_loss.backward()
        return loss

    def update_actor(self, batch: TorchMiniBatch) -> Dict[str, float]:
        # Q function should be inference mode for stability
        self._modules.q_funcs.eval()
        loss = self.compute_actor_grad(batch)
        self._modules.actor_optim.step()
        return asdict_as_float(loss)

    def inner_update(self, batch: TorchMiniBatch, grad_step: int) -> Dict[str, float]:
        metrics = {}
        metrics.update(self.update_critic(batch))
        metrics.update(self.update_actor(batch))
        self.update_critic_target()
        return metrics

    @abstractmethod
    def compute_actor_loss(self, batch: TorchMiniBatch, action: ActionOutput) -> DDPGBaseActorLoss:
        pass

    @abstractmethod
    def compute_target(self, batch: TorchMiniBatch) -> torch.Tensor:
        pass

    def inner_predict_best_action(self, x: torch.Tensor) -> torch.Tensor:
        return self._modules.policy(x).squashed_mu

    def update_critic_target(self) -> None:
        soft_sync(self._modules.targ_q_funcs, self._modules.q_funcs, self._tau)

    @property
    def policy(self) -> DeterministicPolicy:
        return self._modules.policy

    @property
    def q_function(self) -> nn.ModuleList:
        return self._modules.q_funcs
