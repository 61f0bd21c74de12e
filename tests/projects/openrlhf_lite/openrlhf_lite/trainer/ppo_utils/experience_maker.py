# Modelled on openrlhf/trainer/ppo_utils/experience_maker.py (NaiveExperienceMaker, batched, GAE).
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.nn as nn

from openrlhf_lite.models.actor import Actor
from openrlhf_lite.models.utils import compute_approx_kl, compute_reward, masked_mean


@dataclass
class Experience:
    """Experience is a batch of data.
    Left padding for sequences is applied.

    sequences: (B, S)  action_log_probs: (B, A)  base_action_log_probs: (B, A)
    values: (B, A)  returns: (B, A)  advantages: (B, A)  attention_mask: (B, S)
    action_mask: (B, A)  kl: (B, A)
    """

    sequences: torch.Tensor
    action_log_probs: torch.Tensor
    base_action_log_probs: torch.Tensor
    values: torch.Tensor
    returns: Optional[torch.Tensor]
    advantages: Optional[torch.Tensor]
    attention_mask: Optional[torch.LongTensor]
    action_mask: Optional[torch.BoolTensor]
    info: Optional[dict]
    kl: Optional[torch.Tensor] = None

    @torch.no_grad()
    def to_device(self, device: torch.device):
        for name in ("sequences", "action_log_probs", "base_action_log_probs", "values", "returns",
                     "advantages", "attention_mask", "action_mask", "kl"):
            v = getattr(self, name)
            if isinstance(v, torch.Tensor):
                setattr(self, name, v.to(device))
        self.info = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in self.info.items()}
        return self


@dataclass
class Samples:
    sequences: torch.Tensor
    attention_mask: Optional[torch.LongTensor]
    action_mask: Optional[torch.BoolTensor]
    num_actions: int
    response_length: torch.Tensor
    total_length: torch.Tensor


class NaiveExperienceMaker:
    """
    Naive experience maker.
    """

    def __init__(self, actor: Actor, critic: nn.Module, reward_model: nn.Module, initial_model: Actor,
                 tokenizer, prompt_max_len: int, kl_controller, strategy=None):
        super().__init__()
        self.actor = actor
        self.critic = critic
        self.reward_model = reward_model
        self.initial_model = initial_model
        self.tokenizer = tokenizer
        self.prompt_max_len = prompt_max_len
        self.kl_ctl = kl_controller
        self.strategy = strategy
        self.advantage_estimator = strategy.args.advantage_estimator

    @torch.no_grad()
    def make_experience_list(self, all_prompts: torch.Tensor, **generate_kwargs) -> List[Experience]:
        args = self.strategy.args
        samples_list = self.generate_samples(all_prompts, **generate_kwargs)

        experiences = []
        for samples in samples_list:
            experiences.append(self.make_experience(samples).to_device("cpu"))

        experiences, rewards = self.process_experiences(experiences)

        # calculate return and advantages
        for experience, reward in zip(experiences, rewards):
            num_actions = experience.info["num_actions"]
            reward = compute_reward(
                reward,
                self.kl_ctl.value,
                experience.kl,
                action_mask=experience.action_mask,
                num_actions=num_actions,
                reward_clip_range=args.reward_clip_range,
            )

            if self.advantage_estimator == "gae":
                experience.advantages, experience.returns = self.get_advantages_and_returns(
                    experience.values,
                    reward,
                    experience.action_mask,
                    generate_kwargs["gamma"],
                    generate_kwargs["lambd"],
                )
            else:
                raise Exception(f"Unkown advantage_estimator {self.advantage_estimator}")

            experience.info["return"] = reward.sum(dim=-1)
            # remove unnecessary info
            experience.kl = None
            del experience.info["num_actions"]
        return experiences

    @torch.no_grad()
    def generate_samples(self, all_prompts: torch.Tensor, **generate_kwargs) -> List[Samples]:
        args = self.strategy.args
        self.actor.eval()
        samples_list = []
        for i in range(0, all_prompts.size(0), args.micro_rollout_batch_size):
            input_ids = all_prompts[i : i + args.micro_rollout_batch_size]
            sequences, attention_mask, action_mask = self.actor.generate(input_ids, **generate_kwargs)
            samples_list.append(Samples(
                sequences=sequences,
                attention_mask=attention_mask,
                action_mask=action_mask,
                num_actions=action_mask.size(1),
                response_length=action_mask.float().sum(dim=-1),
                total_length=attention_mask.float().sum(dim=-1),
            ))
        return samples_list

    @torch.no_grad()
    def make_experience(self, samples: Samples) -> Experience:
        """
        Turn samples into experience by calculating logprobs, values, rewards, and kl divergence.
        """
        self.actor.eval()
        self.initial_model.eval()
        self.reward_model.eval()
        self.critic.eval()

        sequences = samples.sequences
        attention_mask = samples.attention_mask
        action_mask = samples.action_mask
        num_actions = samples.num_actions

        # log probs
        action_log_probs = self.actor(sequences, num_actions, attention_mask)
        # init log probs
        base_action_log_probs = self.initial_model(sequences, num_actions, attention_mask)
        # values
        value = self.critic(sequences, num_actions, attention_mask)
        # rewards
        r = self.reward_model(sequences, attention_mask)

        kl = compute_approx_kl(
            action_log_probs,
            base_action_log_probs,
            action_mask=action_mask,
            kl_estimator=self.strategy.args.kl_estimator,
        )

        info = {
            "kl": masked_mean(kl, action_mask, dim=-1),
            "reward": r,
            "response_length": samples.response_length,
            "total_length": samples.total_length,
            "num_actions": num_actions,
        }
        # reset model state
        self.actor.train()
        self.critic.train()

        return Experience(sequences, action_log_probs, base_action_log_probs, value, None, None,
                          attention_mask, action_mask, info, kl)

    @torch.no_grad()
    def process_experiences(self, experiences: List[Experience]) -> Tuple[List[Experience], List[torch.Tensor]]:
        return experiences, [experience.info["reward"] for experience in experiences]

    @torch.no_grad()
    def get_advantages_and_returns(self, values: torch.Tensor, rewards: torch.Tensor,
                                   action_mask: torch.Tensor, gamma: float, lambd: float):
        """Function that computes advantages and returns from rewards and values.
        Calculated as in the original PPO paper: https://arxiv.org/abs/1707.06347
        """
        lastgaelam = 0
        advantages_reversed = []
        response_length = rewards.size(1)

        # Mask invalid responses
        if action_mask is not None:
            values = action_mask * values
            rewards = action_mask * rewards

        for t in reversed(range(response_length)):
            nextvalues = values[:, t + 1] if t < response_length - 1 else 0.0
            delta = rewards[:, t] + gamma * nextvalues - values[:, t]
            lastgaelam = delta + gamma * lambd * lastgaelam
            advantages_reversed.append(lastgaelam)
        advantages = torch.stack(advantages_reversed[::-1], dim=1)
        returns = advantages + values
        return advantages.detach(), returns
