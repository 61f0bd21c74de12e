# Modelled on openrlhf/models/model.py::get_llm_for_sequence_regression (critic / reward model).
from typing import Optional

import torch
import torch.nn as nn

from .actor import TinyCausalLM


class RewardModel(nn.Module):
    def __init__(self, base: TinyCausalLM, normalize_reward=False):
        super().__init__()
        self.model = base
        self.score = nn.Linear(base.config.hidden_size, 1, bias=False)
        self.normalize_reward = normalize_reward
        self.register_buffer("mean", torch.zeros(1), persistent=False)
        self.register_buffer("std", torch.ones(1), persistent=False)

    def forward(self, input_ids, attention_mask=None, return_output=False):
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        outputs = self.model(input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             output_hidden_states=True)
        values = self.score(outputs["last_hidden_state"]).squeeze(-1)
        # left padding in training mode
        eos_indices = attention_mask.size(1) - 1 - attention_mask.long().fliplr().argmax(dim=1, keepdim=True)
        reward = values.gather(dim=1, index=eos_indices).squeeze(1)
        if not self.training and self.normalize_reward:
            reward = (reward - self.mean) / self.std
        return (reward, outputs) if return_output else reward


class CriticModel(nn.Module):
    def __init__(self, base: TinyCausalLM, normalize_reward=False):
        super().__init__()
        self.model = base
        self.value_head = nn.Linear(base.config.hidden_size, 1, bias=False)
        self.normalize_reward = normalize_reward

    def forward(self, input_ids, num_actions: Optional[int] = None, attention_mask=None,
                return_output=False):
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        outputs = self.model(input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             output_hidden_states=True)
        values = self.value_head(outputs["last_hidden_state"]).squeeze(-1)[:, :-1]
        action_values = values[:, -num_actions:]
        if return_output:
            return (action_values, outputs)
        return action_values


def get_llm_for_sequence_regression(model_type: str, vocab_size=48, hidden_size=32, **kwargs):
    base = TinyCausalLM(vocab_size=vocab_size, hidden_size=hidden_size)
    if model_type == "reward":
        return RewardModel(base, **kwargs)
    if model_type == "critic":
        return CriticModel(base, **kwargs)
    raise ValueError(model_type)
