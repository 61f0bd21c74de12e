# Modelled on openrlhf/models/actor.py; the HF causal LM is replaced by TinyCausalLM.
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from .utils import log_probs_from_logits


class TinyCausalLM(nn.Module):
    """One pre-LN transformer block; stands in for AutoModelForCausalLM."""

    def __init__(self, vocab_size=48, hidden_size=32, num_heads=2, max_len=64):
        super().__init__()
        self.config = type("Config", (), {"vocab_size": vocab_size, "hidden_size": hidden_size})()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.embed_positions = nn.Embedding(max_len, hidden_size)
        self.ln_1 = nn.LayerNorm(hidden_size)
        self.attn = nn.MultiheadAttention(hidden_size, num_heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(),
                                 nn.Linear(4 * hidden_size, hidden_size))
        self.ln_f = nn.LayerNorm(hidden_size)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, attention_mask=None, position_ids=None, output_hidden_states=False):
        T = input_ids.size(1)
        if position_ids is None:
            position_ids = torch.arange(T, device=input_ids.device).unsqueeze(0)
        h = self.embed_tokens(input_ids) + self.embed_positions(position_ids.clamp(min=0))
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=h.device), diagonal=1)
        x = self.ln_1(h)
        a, _ = self.attn(x, x, x, attn_mask=causal, need_weights=False)
        h = h + a
        h = h + self.mlp(self.ln_2(h))
        h = self.ln_f(h)
        out = {"logits": self.lm_head(h)}
        if output_hidden_states:
            out["last_hidden_state"] = h
        return out


class Actor(nn.Module):
    """
    Base class for Actor models in reinforcement learning.
    """

    def __init__(self, pretrain_or_model, temperature: float = 1.0):
        super().__init__()
        self.model = pretrain_or_model
        self.temperature = temperature

    @torch.no_grad()
    def generate(self, input_ids: torch.Tensor, **kwargs):
        max_new_tokens = kwargs.get("max_new_tokens", 8)
        eos_token_id = kwargs.get("eos_token_id", 1)
        pad_token_id = kwargs.get("pad_token_id", 0)
        sequences = input_ids
        for _ in range(max_new_tokens):
            logits = self.model(sequences)["logits"][:, -1, :] / self.temperature
            next_tokens = torch.multinomial(F.softmax(logits.float(), dim=-1), 1)
            sequences = torch.cat([sequences, next_tokens], dim=1)
        return self.process_sequences(sequences, input_ids.size(1), eos_token_id, pad_token_id)

    def process_sequences(self, sequences: torch.Tensor, input_len, eos_token_id, pad_token_id):
        attention_mask = (sequences.ne(eos_token_id) & sequences.ne(pad_token_id)).to(dtype=torch.long)
        seq_length = attention_mask.size(1)

        # The following code is equivalent to:
        # for i in range(attention_mask.size(0)):
        #     for t in reversed(range(seq_length)):
        #         if attention_mask[i][t] > 0.5:
        #             attention_mask[i][min(t + 1, seq_length - 1)] = True
        #             sequences[i][min(t + 1, seq_length - 1)] = eos_token_id
        #             break
        eos_indices = seq_length - attention_mask.long().fliplr().argmax(dim=1, keepdim=True).clamp(min=1)
        sequences.scatter_(dim=1, index=eos_indices, value=eos_token_id)

        # For Llama3 and Qwen2 models, there are some eos_tokens in the middle of the prompt.
        first_token_indices = attention_mask.long().argmax(dim=1, keepdim=True)
        mask = torch.arange(seq_length).unsqueeze(0).expand(sequences.size(0), -1).to(device=sequences.device)
        attention_mask = (mask >= first_token_indices) & (mask <= eos_indices).to(dtype=torch.long)

        # in RL, state_i (current token) + action_i (next token) -> state_i+1 (next token)
        state_seq = sequences[:, input_len - 1 : -1]
        action_mask = state_seq.ne(eos_token_id) & state_seq.ne(pad_token_id)
        action_mask[:, 0] = 1

        return sequences, attention_mask, action_mask

    def forward(
        self,
        sequences: torch.LongTensor,
        num_actions: Optional[int] = None,
        attention_mask: Optional[torch.Tensor] = None,
        return_output=False,
    ) -> torch.Tensor:
        """Returns action log probs"""
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        output = self.model(sequences, attention_mask=attention_mask, position_ids=position_ids)
        output["logits"] = output["logits"].to(torch.float32) / self.temperature

        if num_actions is None:
            assert return_output
            return output

        log_probs = log_probs_from_logits(output["logits"][:, :-1, :], sequences[:, 1:])
        action_log_probs = log_probs[:, -num_actions:]
        if return_output:
            return (action_log_probs, output)
        return action_log_probs
