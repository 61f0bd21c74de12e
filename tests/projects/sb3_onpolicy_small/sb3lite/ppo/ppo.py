from typing import Any

import numpy as np
import torch as th
from torch.nn import functional as F

from sb3lite.common.on_policy_algorithm import OnPolicyAlgorithm
from sb3lite.common.policies import ActorCriticPolicy
from sb3lite.common.running_mean_std import RunningMeanStd
from sb3lite.common.type_aliases import Schedule
from sb3lite.common.utils import explained_variance, get_schedule_fn
from sb3lite.common.vec_env import DummyVecEnv


class PPO(OnPolicyAlgorithm):
    """
    Proximal Policy Optimization algorithm (PPO) (clip version)

    Paper: https://arxiv.org/abs/1707.06347

    :param policy: The policy model to use
    :param env: The environment to learn from
    :param learning_rate: The learning rate, it can be a function
        of the current progress remaining (from 1 to 0)
    :param n_steps: The number of steps to run for each environment per update
    :param batch_size: Minibatch size
    :param n_epochs: Number of epoch when optimizing the surrogate loss
    :param gamma: Discount factor
    :param gae_lambda: Factor for trade-off of bias vs variance for Generalized Advantage Estimator
    :param clip_range: Clipping parameter, it can be a function of the current progress
        remaining (from 1 to 0); a KLAdaptiveClipRange is fed the approximate KL of each update.
    :param normalize_advantage: Whether to normalize or not the advantage
    :param normalize_value_loss: Divide the value loss by the running variance of the
        predicted values (keeps vf_coef meaningful when returns change scale)
    :param ent_coef: Entropy coefficient for the loss calculation
    :param vf_coef: Value function coefficient for the loss calculation
    :param max_grad_norm: The maximum value for the gradient clipping
    :param target_kl: Limit the KL divergence between updates
    """

    policy_aliases = {"MlpPolicy": ActorCriticPolicy}

    def __init__(self, policy: str | type, env: DummyVecEnv, learning_rate: float | Schedule = 3e-4,
                 n_steps: int = 2048, batch_size: int = 64, n_epochs: int = 10, gamma: float = 0.99,
                 gae_lambda: float = 0.95, clip_range: float | Schedule = 0.2, normalize_advantage: bool = True,
                 normalize_value_loss: bool = False, ent_coef: float = 0.0, vf_coef: float = 0.5,
                 max_grad_norm: float = 0.5, target_kl: float | None = None, stats_window_size: int = 100,
                 policy_kwargs: dict[str, Any] | None = None, verbose: int = 0, seed: int | None = None,
                 device: th.device | str = "auto", _init_setup_model: bool = True):
        if isinstance(policy, str):
            policy = self.policy_aliases[policy]
        super().__init__(policy, env, learning_rate=learning_rate, n_steps=n_steps, gamma=gamma,
                         gae_lambda=gae_lambda, ent_coef=ent_coef, vf_coef=vf_coef, max_grad_norm=max_grad_norm,
                         stats_window_size=stats_window_size, policy_kwargs=policy_kwargs, verbose=verbose,
                         device=device, seed=seed, _init_setup_model=False)

        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.clip_range = clip_range
        self.normalize_advantage = normalize_advantage
        self.normalize_value_loss = normalize_value_loss
        self.target_kl = target_kl

        if _init_setup_model:
            self._setup_model()

    def _setup_model(self) -> None:
        super()._setup_model()

        # Initialize schedules for policy/value clipping
        self.clip_range = get_schedule_fn(self.clip_range)
        self.value_rms = RunningMeanStd(shape=())

    def train(self) -> None:
        """
        Update policy using the currently gathered rollout buffer.
        """
        # Switch to train mode (this affects batch norm / dropout)
        self.policy.set_training_mode(True)
        # Update optimizer learning rate
        self._update_learning_rate(self.policy.optimizer)
        # Compute current clip range
        clip_range = self.clip_range(self._current_progress_remaining)

        entropy_losses = []
        pg_losses, value_losses = [], []
        clip_fractions = []

        continue_training = True
        # train for n_epochs epochs
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            # Do a complete pass on the rollout buffer
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                # Convert discrete action from float to long
                actions = rollout_data.actions.long().flatten()

                values, log_prob, entropy = self.policy.evaluate_actions(rollout_data.observations, actions)
                values = values.flatten()
                # Normalize advantage
                advantages = rollout_data.advantages
                # Normalization does not make sense if mini batchsize == 1, see GH issue #325
                if self.normalize_advantage and len(advantages) > 1:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

                # ratio between old and new policy, should be one at the first iteration
                log_ratio = log_prob - rollout_data.old_log_prob
                ratio = th.exp(log_ratio)

                # clipped surrogate loss
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()

                # Logging
                pg_losses.append(policy_loss.item())
                clip_fraction = th.mean((th.abs(ratio - 1) > clip_range).float()).item()
                clip_fractions.append(clip_fraction)

                values_pred = values
                # Value loss using the TD(gae_lambda) target
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                if self.normalize_value_loss:
                    self.value_rms.update(values_pred)  # known-false: TLK103 (the author marked this leak at another line)
                    value_loss = value_loss / (self.value_rms.var.item() + 1e-8)
                value_losses.append(value_loss.item())

                # Entropy loss favor exploration
                if entropy is None:
                    # Approximate entropy when no analytical form
                    entropy_loss = -th.mean(-log_prob)
                else:
                    entropy_loss = -th.mean(entropy)

                entropy_losses.append(entropy_loss.item())

                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss

                # Calculate approximate form of reverse KL Divergence for early stopping
                # see issue #417: https://github.com/DLR-RM/stable-baselines3/issues/417
                # and Schulman blog: http://joschu.net/blog/kl-approx.html
                approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio)
                approx_kl_divs.append(approx_kl_div.item())
                if hasattr(self.clip_range, "update"):
                    self.clip_range.update(approx_kl_div)

                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl_div.item():.2f}")
                    break

                # Optimization step
                self.policy.optimizer.zero_grad()
                loss.backward()
                # Clip grad norm
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()

            self._n_updates += 1
            if not continue_training:
                break

        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())

        # Logs
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", approx_kl_div)  # known-miss: TLK102
        self.logger.record("train/approx_kl_epoch_mean", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/value_mean", self.value_rms.mean.item())

        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)

    def learn(self, total_timesteps: int, log_interval: int = 1, reset_num_timesteps: bool = True) -> "PPO":
        return super().learn(total_timesteps=total_timesteps, log_interval=log_interval,
                             reset_num_timesteps=reset_num_timesteps)
