# Source: https://github.com/Michael-JB/nano-rl/blob/2ce8fd014c8c8bc5dda4f458feddc9b2785d267b/grpo/train.py
# Shape: looks like a rollout loop feeding sampled tokens back into the policy plus a deque of experiences and a list of per-experience objectives, but rollouts run under torch.no_grad and store log_probs_sum as a float, and the objectives list is local and consumed by one backward per grad step.
# Verdict: clean
import random
from collections import deque
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

GROUP_SIZE = 4
ROLLOUTS_PER_PROMPT = 4
MAX_ROLLOUT_TOKENS = 12
REPLAY_BUFFER_CAPACITY = 16
EPSILON = 0.2


@dataclass(frozen=True)
class Experience:
    completion: torch.Tensor
    prompt_mask: list
    log_probs_sum: float
    reward: float

    @property
    def response(self):
        return self.completion[torch.tensor(self.prompt_mask)]


class ReplayBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.buffer = deque(maxlen=capacity)

    def push(self, experiences):
        self.buffer.extend(experiences)

    def sample(self, count):
        return random.sample(list(self.buffer), count)


class TinyLM(nn.Module):
    def __init__(self, vocab_size=64, d_model=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.rnn = nn.GRU(d_model, d_model, batch_first=True)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids):
        h, _ = self.rnn(self.embed(input_ids))
        return self.lm_head(h)


def sum_log_probs(response, response_logits):
    log_probs = F.log_softmax(response_logits, dim=-1)
    return log_probs[torch.arange(response.size(0)), response].sum(dim=-1)


def generate(model, prompt, max_new_tokens):
    sequence = prompt.clone()
    step_logits = []
    for _ in range(max_new_tokens):
        logits = model(sequence.unsqueeze(0))[0, -1]
        next_token = torch.multinomial(logits.softmax(-1), 1)
        step_logits.append(logits)
        sequence = torch.cat([sequence, next_token])
    return sequence, torch.stack(step_logits)


def environment_reward(response):
    return (response == 5).float().mean().item()


def rollout(model, prompt):
    completion, response_logits = generate(model, prompt, MAX_ROLLOUT_TOKENS)
    prompt_mask = [False] * len(prompt) + [True] * MAX_ROLLOUT_TOKENS
    response = completion[len(prompt):]
    log_probs_sum = sum_log_probs(response, response_logits).item()
    return Experience(completion, prompt_mask, log_probs_sum, environment_reward(response))


def response_logits(model, experience):
    completion_logits = model(experience.completion.unsqueeze(0)).squeeze(0)
    sequence_logits = completion_logits[:-1, :]
    causal_prompt_mask = torch.tensor(experience.prompt_mask[1:])
    return sequence_logits[causal_prompt_mask, :]


def objective(model, group):
    rewards = torch.tensor([e.reward for e in group], dtype=torch.float)
    mean_reward = rewards.mean().item()
    std_reward = rewards.std().item() + 1e-4

    def experience_objective(experience, reward):
        advantage = (reward - mean_reward) / std_reward
        log_probs_sum = sum_log_probs(experience.response, response_logits(model, experience))
        importance = torch.exp(log_probs_sum - experience.log_probs_sum)
        clipped_importance = torch.clip(importance, 1 - EPSILON, 1 + EPSILON)
        return torch.min(importance * advantage, clipped_importance * advantage)

    objectives = [experience_objective(e, r) for e, r in zip(group, rewards.tolist())]
    return torch.stack(objectives).mean()


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 64, (6,), generator=g) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    random.seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, maximize=True)
    replay_buffer = ReplayBuffer(REPLAY_BUFFER_CAPACITY)
    objective_log = 0.0
    for prompt in batches:
        model.eval()
        with torch.no_grad():
            replay_buffer.push([rollout(model, prompt) for _ in range(ROLLOUTS_PER_PROMPT)])
        model.train()
        group = replay_buffer.sample(GROUP_SIZE)
        group_objective = objective(model, group)
        group_objective.backward()
        optimizer.step()
        optimizer.zero_grad()
        objective_log += group_objective.item()
    return objective_log / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
