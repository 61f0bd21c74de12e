# Source: https://github.com/radixark/miles/pull/1832
# Shape: an RL rollout loop generates responses under no_grad but then scores the old-policy log-probabilities in a separate pass with autograd on, and stores them in a Sample dataclass appended to the persistent rollout buffer; the trainer later detaches them when building the PPO ratio, so the graphs kept in the buffer (one policy forward per rollout step) are never backwarded. The PR detached the stored log-probs at the rollout boundary.
# Verdict: leak
from dataclasses import dataclass, field
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 24


class TinyPolicy(nn.Module):
    def __init__(self, vocab=64, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h = self.embed(tokens)
        h = h + self.mix(h.cumsum(dim=1) / torch.arange(1, tokens.size(1) + 1).view(1, -1, 1))
        return self.lm_head(h)


@dataclass
class Sample:
    tokens: torch.Tensor
    response_len: int
    reward: float
    log_probs: Optional[torch.Tensor] = None
    metadata: dict = field(default_factory=dict)


@torch.no_grad()
def generate(policy, prompt, max_new_tokens=16):
    tokens = prompt
    for _ in range(max_new_tokens):
        nxt = torch.multinomial(F.softmax(policy(tokens)[:, -1], dim=-1), 1)
        tokens = torch.cat([tokens, nxt], dim=1)
    return tokens


def token_log_probs(policy, tokens, response_len):
    logits = policy(tokens[:, :-1])
    logp = F.log_softmax(logits, dim=-1).gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    return logp[:, -response_len:]


def reward_fn(tokens):
    return (tokens[:, -16:] % 2 == 0).float().mean().item()


policy = TinyPolicy()
optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-4)
rollout_buffer: List[Sample] = []
for step in range(STEPS):
    prompt = torch.randint(0, 64, (4, 32))
    tokens = generate(policy, prompt)
    logp = token_log_probs(policy, tokens, 16)
    rollout_buffer.append(Sample(tokens=tokens, response_len=16, reward=reward_fn(tokens), log_probs=logp))  # TLK102

rewards = torch.tensor([s.reward for s in rollout_buffer])
advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
for sample, adv in zip(rollout_buffer, advantages):
    new_logp = token_log_probs(policy, sample.tokens, sample.response_len)
    ratio = torch.exp(new_logp - sample.log_probs.detach())
    loss = -(torch.clamp(ratio, 0.8, 1.2) * adv).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
rollout_buffer.clear()
print("trained on", len(advantages), "samples")
