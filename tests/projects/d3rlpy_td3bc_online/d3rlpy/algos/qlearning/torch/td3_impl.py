import dataclasses
from typing import Dict, Optional

import torch

from ....models.torch import ActionGradientPenalty, ContinuousEnsembleQFunctionForwarder, DeterministicPolicy
from ....torch_utility import TorchMiniBatch, hard_sync, soft_sync
from .ddpg_impl import DDPGBaseActorLoss, DDPGBaseImpl, DDPGBaseModules

__all__ = ["TD3Impl", "TD3Modules"]


@dataclasses.dataclass(frozen=True)
class TD3Modules(DDPGBaseModules):
    targ_policy: DeterministicPolicy


class TD3Impl(DDPGBaseImpl):
    _modules: TD3Modules

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
        update_actor_interval: int,
        gradient_penalty: Optional[ActionGradientPenalty],
        device: str,
        seed: int = 0,
    ):
        super().__init__(
            observation_shape=observation_shape,
            action_size=action_size,
            modules=modules,
            q_func_forwarder=q_func_forwarder,
            targ_q_func_forwarder=targ_q_func_forwarder,
            gamma=gamma,
            tau=tau,
            gradient_penalty=gradient_penalty,
            device=device,
        )
        self._target_smoothing_sigma = target_smoothing_sigma
        self._target_smoothing_clip = target_smoothing_clip
        self._update_actor_interval = update_actor_interval
        self._gen = torch.Generator().manual_seed(seed)
        hard_sync(self._modules.targ_policy, self._modules.policy)

    def compute_target(self, batch: TorchMiniBatch) -> torch.Tensor:
        with torch.no_grad():
            action = self._modules.targ_policy(batch.next_observations)
            # smoothing target
            noise = torch.randn(action.mu.shape, generator=self._gen)
            scaled_noise = self._target_smoothing_sigma * noise
            clipped_noise = scaled_noise.clamp(-self._target_smoothing_clip, self._target_smoothing_clip)
            smoothed_action = action.squashed_mu + clipped_noise
            clipped_action = smoothed_action.clamp(-1.0, 1.0)
            return self._targ_q_func_forwarder.compute_target(
                batch.next_observations, clipped_action, reduction="min"
            )

    def compute_actor_loss(self, batch: TorchMiniBatch, action) -> DDPGBaseActorLoss:
        q_t = self._q_func_forwarder.compute_expected_q(batch.observations, action.squashed_mu, "none")[0]
        return DDPGBaseActorLoss(-q_t.mean())

    def inner_sample_action(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner_predict_best_action(x)

    def update_actor_target(self) -> None:
        soft_sync(self._modules.targ_policy, self._modules.policy, self._tau)

    def inner_update(self, batch: TorchMiniBatch, grad_step: int) -> Dict[str, float]:
        metrics = {}
        metrics.update(self.update_critic(batch))
        # delayed policy update
        if grad_step % self._update_actor_interval == 0:
            metrics.update(self.update_actor(batch))
            self.update_critic_target()
            self.update_actor_target()
        return metrics
