# Source: https://github.com/Unity-Technologies/ml-agents/pull/5048
# Shape: the same per-agent LSTM memory dict fed back on each decision, but acting runs under torch.no_grad() (a decorator on evaluate), so the stored memories carry no graph; training later recomputes the recurrent pass from the buffer.
# Verdict: clean
import torch
import torch.nn as nn
from torch.distributions import Categorical


class LSTMActor(nn.Module):
    def __init__(self, obs_size, n_actions, memory_size=32):
        super().__init__()
        self.memory_size = memory_size
        self.encoder = nn.Sequential(nn.Linear(obs_size, 64), nn.ReLU())
        self.lstm = nn.LSTM(64, memory_size // 2, batch_first=True)
        self.policy_head = nn.Linear(memory_size // 2, n_actions)

    def forward(self, obs, memories):
        h, c = torch.split(memories.unsqueeze(0), self.memory_size // 2, dim=-1)
        enc = self.encoder(obs).unsqueeze(1)
        out, (h, c) = self.lstm(enc, (h.contiguous(), c.contiguous()))
        return self.policy_head(out[:, -1]), torch.cat([h, c], dim=-1).squeeze(0)


class TorchPolicy:
    def __init__(self, obs_size, n_actions, memory_size=32):
        self.actor = LSTMActor(obs_size, n_actions, memory_size)
        self.memory_size = memory_size
        self.memory_dict = {}

    def retrieve_memories(self, agent_ids):
        zeros = torch.zeros(self.memory_size)
        return torch.stack([self.memory_dict.get(a, zeros) for a in agent_ids])

    def remove_memories(self, agent_ids):
        for a in agent_ids:
            self.memory_dict.pop(a, None)

    @torch.no_grad()
    def evaluate(self, obs, agent_ids):
        memories = self.retrieve_memories(agent_ids)
        logits, new_memories = self.actor(obs, memories)
        actions = Categorical(logits=logits).sample()
        for i, agent_id in enumerate(agent_ids):
            self.memory_dict[agent_id] = new_memories[i]
        return actions


def run_episode(policy, env_steps, agent_ids):
    actions_taken = []
    for obs, done in env_steps:
        actions = policy.evaluate(obs, agent_ids)
        actions_taken.append(actions.tolist())
        if done:
            policy.remove_memories(agent_ids)
    return actions_taken
