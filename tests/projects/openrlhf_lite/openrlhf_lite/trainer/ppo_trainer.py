# Modelled on openrlhf/trainer/ppo_trainer.py (the single-controller PPOTrainer, before the ray split).
import itertools
from typing import Any, Callable, Dict, Optional

import torch
import torch.nn as nn
from torch.optim import Optimizer
from torch.utils.data import DataLoader

from openrlhf_lite.models import Actor, GPTLMLoss, PolicyLoss, ValueLoss
from openrlhf_lite.models.utils import compute_approx_kl, masked_mean
from openrlhf_lite.utils import LocalTracker

from .ppo_utils import AdaptiveKLController, Experience, FixedKLController, NaiveExperienceMaker, NaiveReplayBuffer


class PPOTrainer:
    """
        Trainer for PPO algorithm.

    Args:
        strategy (Strategy): the strategy to use for training
        actor (Actor): the actor model in ppo algorithm
        critic (nn.Module): the critic model in ppo algorithm
        reward_model (nn.Module): the reward model in rlhf algorithm to make reward of sentences
        initial_model (Actor): the initial model in rlhf algorithm to generate reference logits
        ema_model (Actor): exponential moving average of the actor, used for evaluation
        init_kl_coef / kl_target / kl_horizon: KL controller settings
        ptx_coef (float): weight of the pretraining (ptx) loss
    """

    def __init__(
        self,
        strategy,
        actor: Actor,
        critic: nn.Module,
        reward_model: nn.Module,
        initial_model: Actor,
        ema_model: Actor,
        actor_optim: Optimizer,
        critic_optim: Optimizer,
        actor_scheduler,
        critic_scheduler,
        ema_beta: float = 0.992,
        init_kl_coef: float = 0.001,
        kl_target: float = None,
        kl_horizon: int = 10000,
        ptx_coef: float = 0,
        micro_train_batch_size: int = 8,
        buffer_limit: int = 0,
        buffer_cpu_offload: bool = True,
        eps_clip: float = 0.2,
        value_clip: float = 0.2,
        micro_rollout_batch_size: int = 8,
        max_epochs: int = 1,
        max_norm: float = 1.0,
        tokenizer: Optional[Callable[[Any], dict]] = None,
        prompt_max_len: int = 128,
        **generate_kwargs,
    ) -> None:
        super().__init__()
        self.strategy = strategy
        self.args = strategy.args
        self.micro_rollout_batch_size = micro_rollout_batch_size
        self.max_epochs = max_epochs
        self.tokenizer = tokenizer
        self.generate_kwargs = generate_kwargs
        self.max_norm = max_norm
        self.ptx_coef = ptx_coef
        self.micro_train_batch_size = micro_train_batch_size
        self.kl_target = kl_target
        self.prompt_max_len = prompt_max_len
        self.ema_beta = ema_beta

        self.actor = actor
        self.critic = critic
        self.reward_model = reward_model
        self.initial_model = initial_model
        self.ema_model = ema_model
        self.actor_optim = actor_optim
        self.critic_optim = critic_optim
        self.actor_scheduler = actor_scheduler
        self.critic_scheduler = critic_scheduler

        self.actor_loss_fn = PolicyLoss(eps_clip)
        self.critic_loss_fn = ValueLoss(value_clip)
        self.ptx_loss_fn = GPTLMLoss()

        self.freezing_actor_steps = getattr(self.args, "freezing_actor_steps", -1)

        if self.kl_target:
            self.kl_ctl = AdaptiveKLController(init_kl_coef, kl_target, kl_horizon)
        else:
            self.kl_ctl = FixedKLController(init_kl_coef)

        self.experience_maker = NaiveExperienceMaker(
            actor, critic, reward_model, initial_model, tokenizer, prompt_max_len, self.kl_ctl, strategy,
        )
        self.replay_buffer = NaiveReplayBuffer(micro_train_batch_size, buffer_limit, buffer_cpu_offload)

        # running mean of the ptx loss since the start of training (reported as train/ptx_loss)
        self.ptx_loss_sum = 0.0
        self.ptx_steps = 0

        self._tracker = LocalTracker(config=vars(self.args))

    def fit(self, args, prompts_dataloader, pretrain_dataloader, consumed_samples=0,
            num_update_steps_per_episodes=1) -> None:
        update_timesteps = args.rollout_batch_size // (self.strategy.world_size * self.micro_rollout_batch_size)

        self.prompts_dataloader = prompts_dataloader
        self.pretrain_dataloader = (
            iter(itertools.cycle(pretrain_dataloader)) if pretrain_dataloader is not None else None
        )

        steps = consumed_samples // args.rollout_batch_size * update_timesteps + 1
        start_episode = 0

        for episode in range(start_episode, args.num_episodes):
            for rand_prompts in self.prompts_dataloader:
                if steps > args.max_steps:
                    return
                for experience in self.experience_maker.make_experience_list(rand_prompts, **self.generate_kwargs):
                    self.replay_buffer.append(experience)

                if steps % update_timesteps == 0:
                    global_steps = steps // update_timesteps

                    self.replay_buffer.normalize("advantages", self.strategy)
                    status = self.ppo_train(global_steps)
                    self.replay_buffer.clear()

                    if "kl" in status:
                        self.kl_ctl.update(status["kl"], args.rollout_batch_size)

                    # logs/checkpoints
                    client_states = {"consumed_samples": global_steps * args.rollout_batch_size}
                    self.save_logs_and_checkpoints(args, global_steps, status, client_states)

                steps = steps + 1

    def ppo_train(self, global_steps=0):
        # replay buffer may be empty at first, we should rebuild at each training
        g = torch.Generator().manual_seed(global_steps)
        dataloader = DataLoader(
            self.replay_buffer,
            batch_size=self.replay_buffer.sample_batch_size,
            shuffle=True,
            drop_last=True,
            generator=g,
            collate_fn=self.replay_buffer.collate_fn,
        )
        device = torch.device("cpu")

        status_list = []
        status_mean = {}
        for epoch in range(self.max_epochs):
            for experience in dataloader:
                experience.to_device(device)
                status = self.training_step(experience, global_steps)

                # for DP
                # weighted mean for kl
                if "kl" in status:
                    status["kl"] *= status["response_length"]
                    status = self.strategy.all_reduce(status)
                    status["kl"] /= status["response_length"]

                status_list.append(status)  # known-false: TLK102 (the author marked this leak at another line)

        if status_list:
            status_mean = status_list[0]
            for m in status_list[1:]:
                for k, v in m.items():
                    status_mean[k] += v
            for k in status_mean.keys():
                status_mean[k] /= len(status_list)
        return status_mean

    def training_step(self, experience: Experience, global_steps) -> Dict[str, float]:
        status = {}
        if global_steps > self.freezing_actor_steps:
            status = self.training_step_actor(experience)
        status.update(self.training_step_critic(experience))
        return status

    def training_step_actor(self, experience: Experience) -> Dict[str, float]:
        self.actor.train()

        num_actions = experience.action_mask.size(1)
        # actor loss
        action_log_probs, output = self.actor(
            experience.sequences, num_actions, attention_mask=experience.attention_mask, return_output=True
        )

        # loss function
        actor_loss = self.actor_loss_fn(
            action_log_probs,
            experience.action_log_probs,
            experience.advantages,
            action_mask=experience.action_mask,
        )
        loss = actor_loss
        self.strategy.backward(loss, self.actor, self.actor_optim)

        # ptx loss
        if self.pretrain_dataloader is not None:
            data = next(self.pretrain_dataloader)
            inputs = data[1].squeeze(1)
            attention_mask = data[2].squeeze(1)
            label = torch.where(
                attention_mask.bool(),
                inputs,
                self.ptx_loss_fn.IGNORE_INDEX,
            )

            output = self.actor(inputs, attention_mask=attention_mask, return_output=True)
            ptx_log_probs = output["logits"]

            # loss function
            ptx_loss = self.ptx_loss_fn(ptx_log_probs, label)
            self.strategy.backward(self.ptx_coef * ptx_loss, self.actor, self.actor_optim)
            self.ptx_loss_sum += ptx_loss  # expect: TLK101
            self.ptx_steps += 1

        self.strategy.optimizer_step(self.actor_optim, self.actor, self.actor_scheduler, name="actor")
        if self.ema_model:
            self.strategy.moving_average(self.actor, self.ema_model, self.ema_beta, "cpu")

        # status
        status = {"policy_loss": actor_loss.item(), "actor_lr": self.actor_scheduler.get_last_lr()[0]}
        if self.pretrain_dataloader is not None:
            status["ptx_loss"] = float(self.ptx_loss_sum / max(self.ptx_steps, 1))
        for k, v in experience.info.items():
            if k == "kl":
                continue
            status[k] = v.mean().item()
        # the rollout-time kl is stale after the first ppo epoch: measure the current policy against
        # the reference on this micro batch for the adaptive KL controller
        kl = compute_approx_kl(
            action_log_probs,
            experience.base_action_log_probs,
            action_mask=experience.action_mask,
            kl_estimator=self.args.kl_estimator,
        )
        status["kl"] = masked_mean(kl, experience.action_mask, dim=-1).mean()  # known-miss: TLK103
        return status

    def training_step_critic(self, experience: Experience) -> Dict[str, float]:
        self.critic.train()

        # critic loss
        values, output = self.critic(
            experience.sequences,
            num_actions=experience.action_mask.size(1),
            attention_mask=experience.attention_mask,
            return_output=True,
        )
        # loss function
        critic_loss = self.critic_loss_fn(
            values,
            experience.values,
            experience.returns,
            action_mask=experience.action_mask,
        )
        loss = critic_loss
        self.strategy.backward(loss, self.critic, self.critic_optim)
        self.strategy.optimizer_step(self.critic_optim, self.critic, self.critic_scheduler, name="critic")

        # status
        status = {
            "critic_loss": critic_loss.item(),
            "values": masked_mean(values, experience.action_mask).item(),
            "critic_lr": self.critic_scheduler.get_last_lr()[0],
        }
        return status

    def save_logs_and_checkpoints(self, args, global_step, logs_dict={}, client_states={}):
        if global_step % args.logging_steps == 0:
            logs = {
                "train/%s" % k: v
                for k, v in {
                    **logs_dict,
                    "global_step": global_step,
                }.items()
            }
            logs["train/kl_coef"] = self.kl_ctl.value
            self._tracker.log(logs)  # known-false: TLK102 (the author marked this leak at another line)
        # the real trainer also runs evaluation and strategy.save_ckpt(...) here
