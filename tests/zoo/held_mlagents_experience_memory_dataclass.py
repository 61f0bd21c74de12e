# Source: https://github.com/Unity-Technologies/ml-agents/pull/5048
# Shape: the LSTM policy detaches the memory it feeds back, but the agent processor also records each step as an AgentExperience dataclass whose memory field is the graph-attached output of the recurrent forward, appended to a trajectory buffer that lives across the whole collection phase, so every step's actor graph stays alive until the buffer is consumed.
# Verdict: leak
from dataclasses import dataclass
from typing import List

import torch
import torch.nn as nn
from torch.distributions import Categorical


@dataclass
class AgentExperience:
    obs: torch.Tensor
    action: int
    reward: float
    done: bool
    memory: torch.Tensor


class LSTMActor(nn.Module):
    def __init__(self, obs_size, n_actions, memory_size=32):
        super().__init__()
        self.memory_size = memory_size
        self.encoder = nn.Sequential(nn.Linear(obs_size, 64), nn.ReLU())
        self.cell = nn.LSTMCell(64, memory_size // 2)
        self.policy_head = nn.Linear(memory_size // 2, n_actions)

    def forward(self, obs, memory):
        h, c = torch.split(memory, self.memory_size // 2, dim=-1)
        h, c = self.cell(self.encoder(obs), (h, c))
        return self.policy_head(h), torch.cat([h, c], dim=-1)


class AgentProcessor:
    def __init__(self, actor: LSTMActor):
        self.actor = actor
        self.memory = torch.zeros(1, actor.memory_size)
        self.buffer: List[AgentExperience] = []

    def step(self, obs, reward, done):
        logits, new_memory = self.actor(obs, self.memory)
        action = Categorical(logits=logits).sample().item()
        self.buffer.append(AgentExperience(obs=obs, action=action, reward=reward, done=done, memory=new_memory))  # TLK102
        self.memory = new_memory.detach()
        if done:
            self.memory = torch.zeros(1, self.actor.memory_size)
        return action


def collect(processor, env_steps):
    for obs, reward, done in env_steps:
        processor.step(obs, reward, done)
    return len(processor.buffer)
