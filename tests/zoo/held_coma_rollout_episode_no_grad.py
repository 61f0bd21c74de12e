# Source: https://github.com/starry-sky6688/MARL-Algorithms/issues/90
# Shape: the same COMA rollout worker with the fix the thread settled on: generate_episode is decorated with @torch.no_grad(), so the recurrent actor builds no graph while playing and the stored action probabilities in the replay buffer are plain tensors.
# Verdict: clean
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class RecurrentActor(nn.Module):
    def __init__(self, obs_dim=12, n_actions=5, hidden=32):
        super().__init__()
        self.fc = nn.Linear(obs_dim + n_actions, hidden)
        self.rnn = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, n_actions)
        self.hidden = hidden

    def forward(self, inputs, h):
        h = self.rnn(F.relu(self.fc(inputs)), h)
        return F.softmax(self.out(h), dim=-1), h


class RolloutWorker:
    def __init__(self, actor, n_agents=3, obs_dim=12, n_actions=5, episode_limit=20):
        self.actor = actor
        self.n_agents, self.obs_dim, self.n_actions = n_agents, obs_dim, n_actions
        self.episode_limit = episode_limit

    @torch.no_grad()
    def generate_episode(self, epsilon=0.1):
        obs_seq, action_seq, prob_seq, reward_seq = [], [], [], []
        last_onehot = torch.zeros(self.n_agents, self.n_actions)
        h = torch.zeros(self.n_agents, self.actor.hidden)
        for step in range(self.episode_limit):
            obs = torch.randn(self.n_agents, self.obs_dim)
            probs, h = self.actor(torch.cat([obs, last_onehot], dim=-1), h)
            probs = (1 - epsilon) * probs + epsilon / self.n_actions
            actions = torch.distributions.Categorical(probs).sample()
            last_onehot = F.one_hot(actions, self.n_actions).float()
            obs_seq.append(obs)
            action_seq.append(actions)
            prob_seq.append(probs)
            reward_seq.append(random.random())
        return {"o": obs_seq, "u": action_seq, "pi": prob_seq, "r": reward_seq}


class Runner:
    def __init__(self, worker, buffer_size=500):
        self.worker = worker
        self.buffer = []
        self.buffer_size = buffer_size

    def run(self, n_episodes):
        returns = []
        for episode_idx in range(n_episodes):
            episode = self.worker.generate_episode()
            self.buffer.append(episode)
            self.buffer = self.buffer[-self.buffer_size:]
            returns.append(sum(episode["r"]))
        return returns
