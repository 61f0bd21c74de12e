# pylint: disable=too-many-ancestors
import dataclasses
from typing import Optional

import torch

from ....models.torch import ActionGradientPenalty, ActionOutput, ContinuousEnsembleQFunctionForwarder
from ....torch_utility import TorchMiniBatch
from .ddpg_impl import DDPGBaseActorLoss
from .td3_impl import TD3Impl, TD3Modules

__all__ = ["TD3PlusBCImpl", "TD3PlusBCActorLoss"]


@dataclasses.dataclass(frozen=True)
class TD3PlusBCActorLoss(DDPGBaseActorLoss):
    bc_loss: torch.Tensor
    lam: torch.Tensor


class TD3PlusBCImpl(TD3Impl):
    _alpha: float

    def __init__(
        self,
        observation_shape,
        action_size: int,
        modules: TD3Modules,
        q_func_forwarder: ContinuousEnsembleQFunctionForwarder,
        targ_q_func_forwarder: ContinuousEnsembleQFunctionForwarder,
        gamma: float,
        tau: float,
        target_smoothing_sigma: float,
        target_smoothing_clip: float,
        alpha: float,
        q_scale_momentum: float,
        update_actor_interval: int,
        gradient_penalty: Optional[ActionGradientPenalty],
        device: str,
    ):
        super().__init__(
            observation_shape=observation_shape,
            action_size=action_size,
            modules=modules,
            q_func_forwarder=q_func_forwarder,
            targ_q_func_forwarder=targ_q_func_forwarder,
            gamma=gamma,
            tau=tau,
            target_smoothing_sigma=target_smoothing_sigma,
            target_smoothing_clip=target_smoothing_clip,
            update_actor_interval=update_actor_interval,
            gradient_penalty=gradient_penalty,
            device=device,
        )
        self._alpha = alpha
        self._q_scale_momentum = q_scale_momentum
        self._q_scale = torch.ones((), device=device)

    def _update_q_scale(self, q_t: torch.Tensor) -> torch.Tensor:
        # the per-batch |Q| normaliser of TD3+BC is noisy with the small online batches used
        # for fine-tuning, so it is smoothed across updates
        m = self._q_scale_momentum
        self._q_scale = m * self._q_scale + (1.0 - m) * q_t.abs().mean()  # known-miss: TLK103
        return self._q_scale

    def compute_actor_loss(self, batch: TorchMiniBatch, action: ActionOutput) -> TD3PlusBCActorLoss:
        q_t = self._q_func_forwarder.compute_expected_q(batch.observations, action.squashed_mu, "none")[0]
        q_scale = self._update_q_scale(q_t)
        with torch.no_grad():
            lam = self._alpha / q_scale.clamp(min=1e-3)
        bc_loss = ((batch.actions - action.squashed_mu) ** 2).mean()
        return TD3PlusBCActorLoss(actor_loss=lam * -q_t.mean() + bc_loss, bc_loss=bc_loss, lam=lam)
