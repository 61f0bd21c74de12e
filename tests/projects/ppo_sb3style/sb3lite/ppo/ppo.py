from typing import Optional

import torch as th
import torch.nn.functional as F

from sb3lite.common.on_policy_algorithm import OnPolicyAlgorithm
from sb3lite.common.running_mean_std import RunningMeanStd
from sb3lite.common.utils import explained_variance, get_schedule_fn


class PPO(OnPolicyAlgorithm):
    """
    Proximal Policy Optimization algorithm (PPO) (clip version)

    :param batch_size: Minibatch size
    :param n_epochs: Number of epoch when optimizing the surrogate loss
    :param clip_range: Clipping parameter
    :param normalize_advantage: Whether to normalize or not the advantage
    :param target_kl: Limit the KL divergence between updates
    :param scale_value_loss: Divide the value loss by the running std of the critic's predictions
    """

    def __init__(self, env, learning_rate: float = 3e-4, n_steps: int = 32, batch_size: int = 256,
                 n_epochs: int = 1, gamma: float = 0.99, gae_lambda: float = 0.95, clip_range: float = 0.2,
                 normalize_advantage: bool = True, ent_coef: float = 0.01, vf_coef: float = 0.5,
                 max_grad_norm: float = 0.5, target_kl: Optional[float] = None, scale_value_loss: bool = True,
                 seed: int = 0):
        super().__init__(env, learning_rate=learning_rate, n_steps=n_steps, gamma=gamma, gae_lambda=gae_lambda,
                         ent_coef=ent_coef, vf_coef=vf_coef, max_grad_norm=max_grad_norm, seed=seed)
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.clip_range = get_schedule_fn(clip_range)
        self.normalize_advantage = normalize_advantage
        self.target_kl = target_kl
        self.scale_value_loss = scale_value_loss
        self.value_rms = RunningMeanStd(shape=())

    def train(self) -> None:
        """
        Update policy using the currently gathered rollout buffer.
        """
        self.policy.set_training_mode(True)
        clip_range = self.clip_range(1.0)

        entropy_losses = []
        pg_losses, value_losses = [], []
        clip_fractions = []

        continue_training = True
        for epoch in range(self.n_epochs):
            for rollout_data in self.rollout_buffer.get(self.batch_size, self.generator):
                actions = rollout_data.actions
                values, log_prob, entropy = self.policy.evaluate_actions(rollout_data.observations, actions)
                values = values.flatten()
                advantages = rollout_data.advantages
                if self.normalize_advantage and len(advantages) > 1:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

                # ratio between old and new policy, should be one at the first iteration
                ratio = th.exp(log_prob - rollout_data.old_log_prob)

                # clipped surrogate loss
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()

                # Logging
                pg_losses.append(policy_loss.item())
                clip_fraction = th.mean((th.abs(ratio - 1) > clip_range).float()).item()
                clip_fractions.append(clip_fraction)

                # Value loss, scaled by the running spread of the critic's predictions
                self.value_rms.update(values)  # known-false: TLK103 (the author marked this leak at another line)
                vf_scale = max(1.0, float(th.sqrt(self.value_rms.var))) if self.scale_value_loss else 1.0
                value_loss = F.mse_loss(rollout_data.returns, values) / vf_scale
                value_losses.append(value_loss.item())

                entropy_loss = -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())

                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss

                # approximate reverse KL (http://joschu.net/blog/kl-approx.html), averaged over the log period
                log_ratio = log_prob - rollout_data.old_log_prob
                approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio)
                self.logger.record_mean("train/approx_kl", approx_kl_div)  # known-false: TLK101 (the author marked this leak at another line)

                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break

                # Optimization step
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()

                self.callback.update_locals(locals())
                self.callback.on_update_end()

            self._n_updates += 1
            if not continue_training:
                break

        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())

        # Logs
        self.logger.record("train/entropy_loss", sum(entropy_losses) / len(entropy_losses))
        self.logger.record("train/policy_gradient_loss", sum(pg_losses) / len(pg_losses))
        self.logger.record("train/value_loss", sum(value_losses) / len(value_losses))
        self.logger.record("train/clip_fraction", sum(clip_fractions) / len(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
