from dataclasses import dataclass
from typing import Optional, Tuple

import torch
import torch.nn as nn

from trlx.data.method_configs import MethodConfig, register_method
from trlx.models.tiny_gpt import TinyGPTConfig, TinyGPTLMHeadModel
from trlx.utils.modeling import flatten_dict, get_tensor_stats, make_head, whiten


# KL Controllers


class AdaptiveKLController:
    """Adaptive KL Controller as described in Ziegler et al. "Fine-Tuning Language Models from Human Preferences"
    Reference: Section 2.2 https://arxiv.org/pdf/1909.08593.pdf#page=2
    """

    def __init__(self, init_kl_coef: float, target: float, horizon: int):
        self.value = init_kl_coef
        self.target = target
        self.horizon = horizon

    def update(self, current: float, n_steps: int):
        """Returns adaptively updated KL coefficient, βₜ₊₁."""
        proportional_error = min(max(current / self.target - 1, -0.2), 0.2)  # ϵₜ
        mult = 1 + proportional_error * n_steps / self.horizon
        self.value *= mult  # βₜ₊₁


class FixedKLController:
    """Fixed KL controller."""

    def __init__(self, kl_coef):
        self.value = kl_coef

    def update(self, current: float, n_steps: int):
        pass


# PPO Configs


@dataclass
@register_method
class PPOConfig(MethodConfig):
    """Config for PPO method"""

    ppo_epochs: int
    num_rollouts: int
    chunk_size: int
    init_kl_coef: float
    target: float
    horizon: int
    gamma: float
    lam: float
    cliprange: float
    cliprange_value: float
    vf_coef: float
    scale_reward: Optional[str]
    ref_mean: Optional[float]
    ref_std: Optional[float]
    cliprange_reward: float
    gen_kwargs: dict
    gen_experience_kwargs: Optional[dict] = None
    num_value_layers_unfrozen: int = 0

    def get_advantages_and_returns(self, values, rewards, response_length: int, use_whitening: Optional[bool] = True):
        """Function that computes advantages and returns from rewards and values.
        Calculated as in the original PPO paper: https://arxiv.org/abs/1707.06347
        """
        lastgaelam = 0
        advantages_reversed = []
        for t in reversed(range(response_length)):
            nextvalues = values[:, t + 1] if t < response_length - 1 else 0.0
            delta = rewards[:, t] + self.gamma * nextvalues - values[:, t]
            lastgaelam = delta + self.gamma * self.lam * lastgaelam
            advantages_reversed.append(lastgaelam)
        advantages = torch.stack(advantages_reversed[::-1], dim=1)
        returns = advantages + values
        if use_whitening:
            advantages = whiten(advantages)
        return advantages.detach(), returns

    def loss(self, logprobs, values, old_logprobs, old_values, advantages, returns, mask):
        """PPO objective function.
        References:
        - https://stable-baselines.readthedocs.io/en/master/modules/ppo2.html
        """
        values_clipped = torch.clamp(
            values,
            old_values - self.cliprange_value,
            old_values + self.cliprange_value,
        )
        n = mask.sum()

        vf_loss1 = (values - returns) ** 2
        vf_loss2 = (values_clipped - returns) ** 2
        vf_loss = 0.5 * torch.sum(torch.max(vf_loss1, vf_loss2) * mask) / n
        vf_clipfrac = torch.sum((vf_loss2 > vf_loss1).float() * mask) / n

        log_ratio = (logprobs - old_logprobs) * mask
        ratio = torch.exp(log_ratio)
        # Unbiased KL-div estimates (`k3`). Ref: http://joschu.net/blog/kl-approx.html
        with torch.no_grad():
            approx_kl = torch.mean((ratio - 1) - log_ratio)

        pg_loss1 = -advantages * ratio
        pg_loss2 = -advantages * torch.clamp(
            ratio,
            1.0 - self.cliprange,
            1.0 + self.cliprange,
        )
        pg_loss = torch.sum(torch.max(pg_loss1, pg_loss2) * mask) / n
        pg_clipfrac = torch.sum((pg_loss2 > pg_loss1).float() * mask) / n

        loss = pg_loss + self.vf_coef * vf_loss

        stats = dict(
            losses=dict(
                total_loss=loss.item(),
                policy_loss=pg_loss.item(),
                value_loss=vf_loss.item(),
            ),
            values=dict(
                get_tensor_stats(values, mask, n),
                values_error=torch.sum(((values - returns) * mask) ** 2) / n,
                values_mape_error=torch.sum((abs(values - returns) * mask) / abs(returns * mask + 1e-2)) / n,
                clipfrac=vf_clipfrac,
            ),
            old_values=get_tensor_stats(old_values, mask, n),
            returns=get_tensor_stats(returns, mask, n),
            policy=dict(approx_kl=approx_kl.item(), clipfrac=pg_clipfrac.item()),
            ratio=(ratio * mask).sum() / n,
            padding_percentage=1 - n / mask.numel(),
        )

        return loss, flatten_dict(stats)


@dataclass
class CausalLMOutputWithValue:
    logits: Optional[torch.FloatTensor] = None
    hidden_states: Optional[Tuple[torch.FloatTensor]] = None
    value: Optional[torch.FloatTensor] = None

    def __iter__(self):
        return iter((self.logits, self.hidden_states, self.value))


class AutoModelForCausalLMWithValueHead(nn.Module):
    """An `AutoModel` class wrapper for causal LMs with a value head (scalar per token)."""

    def __init__(self, base_model: TinyGPTLMHeadModel):
        super().__init__()
        self.base_model = base_model
        self.v_head = make_head(base_model.config.hidden_size, 1)
        self.peft_type = None

    @classmethod
    def from_config(cls, config: TinyGPTConfig, **kwargs):
        return cls(TinyGPTLMHeadModel(config))

    def forward(self, input_ids, attention_mask=None, position_ids=None, return_dict=True):
        logits, hidden = self.base_model(input_ids, attention_mask=attention_mask, position_ids=position_ids)
        value = self.v_head(hidden).squeeze(-1)
        return CausalLMOutputWithValue(logits=logits, hidden_states=(hidden,), value=value)

    @torch.no_grad()
    def generate(self, input_ids, attention_mask=None, max_new_tokens=8, do_sample=True, top_k=0,
                 eos_token_id=None, pad_token_id=0, **kwargs):
        """Ancestral sampling (like `transformers.GenerationMixin.generate`, which runs under no_grad)."""
        tokens = input_ids
        mask = attention_mask if attention_mask is not None else torch.ones_like(input_ids)
        finished = torch.zeros(tokens.shape[0], dtype=torch.bool, device=tokens.device)
        for _ in range(max_new_tokens):
            position_ids = mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(mask == 0, 1)
            logits, _ = self.base_model(tokens, attention_mask=mask, position_ids=position_ids)
            logits = logits[:, -1, :]
            if top_k:
                kth = torch.topk(logits, top_k).values[:, -1:]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            if do_sample:
                next_token = torch.multinomial(torch.softmax(logits, -1), 1).squeeze(-1)
            else:
                next_token = logits.argmax(-1)
            next_token = torch.where(finished, torch.full_like(next_token, pad_token_id), next_token)
            if eos_token_id is not None:
                finished |= next_token == eos_token_id
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            mask = torch.cat([mask, (~finished | (next_token == eos_token_id)).long()[:, None]], dim=1)
        return tokens
