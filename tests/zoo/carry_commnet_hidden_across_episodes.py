# Source: https://github.com/IC3Net/IC3Net/issues/7
# Shape: a multi-agent communication-net trainer keeps the agents' LSTM state on the trainer so that it persists from one episode to the next, and never detaches it: the first episode's graph is freed by its backward, and the next episode's policy forward starts from the attached state, so the second train_batch raises "Trying to backward through the graph a second time".
# Verdict: leak
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ["log_prob", "value", "reward"])


class CommNetPolicy(nn.Module):
    def __init__(self, obs_dim=10, hidden=32, n_actions=4):
        super().__init__()
        self.encoder = nn.Linear(obs_dim, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.comm = nn.Linear(hidden, hidden)
        self.action_head = nn.Linear(hidden, n_actions)
        self.value_head = nn.Linear(hidden, 1)
        self.hidden = hidden

    def init_hidden(self, n_agents):
        return torch.zeros(n_agents, self.hidden), torch.zeros(n_agents, self.hidden)

    def forward(self, obs, prev_hid):
        h, c = prev_hid
        comm = self.comm(h).mean(0, keepdim=True).expand_as(h)
        h, c = self.cell(torch.tanh(self.encoder(obs)) + comm, (h, c))
        return F.log_softmax(self.action_head(h), -1), self.value_head(h), (h, c)


class Trainer:
    def __init__(self, policy_net, n_agents=4, max_steps=16, gamma=0.99, lr=1e-3):
        self.policy_net = policy_net
        self.n_agents, self.max_steps, self.gamma = n_agents, max_steps, gamma
        self.optimizer = torch.optim.RMSprop(policy_net.parameters(), lr=lr)
        self.prev_hid = policy_net.init_hidden(n_agents)

    def get_episode(self):
        episode = []
        for t in range(self.max_steps):
            obs = torch.randn(self.n_agents, 10)
            action_out, value, self.prev_hid = self.policy_net(obs, self.prev_hid)  # TLK103
            action = torch.multinomial(action_out.exp(), 1)
            reward = torch.rand(self.n_agents)
            episode.append(Transition(action_out.gather(1, action).squeeze(1), value.squeeze(1), reward))
        return episode

    def train_batch(self):
        episode = self.get_episode()
        returns, running = [], torch.zeros(self.n_agents)
        for tr in reversed(episode):
            running = tr.reward + self.gamma * running
            returns.insert(0, running)
        returns = torch.stack(returns)
        values = torch.stack([tr.value for tr in episode])
        log_probs = torch.stack([tr.log_prob for tr in episode])
        advantages = returns - values
        objective = -(log_probs * advantages.detach()).sum() + 0.05 * advantages.pow(2).sum()
        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()
        return returns[0].mean().item()

    def train(self, n_epochs):
        return [self.train_batch() for _ in range(n_epochs)]
