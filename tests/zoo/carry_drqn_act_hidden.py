# Source: https://github.com/thu-ml/tianshou/issues/584
# Shape: DRQNAgent.act() runs the recurrent Q-network with grad enabled and carries self.hidden from env step to env step without .detach() (the collector keeps the state, training restarts from zeros), so the acting graph grows by one GRU cell per step.
# Verdict: leak
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class DRQNConfig:
    num_envs = 32
    obs_dim = 10
    num_actions = 4
    hidden_dim = 64
    seq_len = 4
    batch_size = 8
    gamma = 0.99
    epsilon = 0.1
    lr = 1e-3
    target_update_period = 3


class RecurrentQNet(nn.Module):
    def __init__(self, obs_dim, hidden_dim, num_actions):
        super().__init__()
        self.fc = nn.Linear(obs_dim, hidden_dim)
        self.rnn = nn.GRUCell(hidden_dim, hidden_dim)
        self.head = nn.Linear(hidden_dim, num_actions)

    def init_hidden(self, batch_size):
        return torch.zeros(batch_size, self.rnn.hidden_size)

    def forward(self, obs, hidden):
        hidden = self.rnn(F.relu(self.fc(obs)), hidden)
        return self.head(hidden), hidden

    def unroll(self, obs_seq):
        hidden = self.init_hidden(obs_seq.size(1))
        outs = []
        for t in range(obs_seq.size(0)):
            q, hidden = self(obs_seq[t], hidden)
            outs.append(q)
        return torch.stack(outs)


class SequenceReplay:
    def __init__(self, capacity, seq_len):
        self.buffer = deque(maxlen=capacity)
        self.seq_len = seq_len
        self.window = deque(maxlen=seq_len + 1)

    def add(self, obs, action, reward):
        self.window.append((obs, action, reward))
        if len(self.window) == self.seq_len + 1:
            obs_seq = torch.stack([w[0] for w in self.window])
            act_seq = torch.stack([w[1] for w in self.window])
            rew_seq = torch.stack([w[2] for w in self.window])
            self.buffer.append((obs_seq, act_seq, rew_seq))

    def sample(self, batch_size):
        items = random.sample(list(self.buffer), min(batch_size, len(self.buffer)))
        env_idx = torch.arange(4)
        obs = torch.stack([o[:, env_idx] for o, _, _ in items], dim=2).flatten(1, 2)
        act = torch.stack([a[:, env_idx] for _, a, _ in items], dim=2).flatten(1, 2)
        rew = torch.stack([r[:, env_idx] for _, _, r in items], dim=2).flatten(1, 2)
        return obs, act, rew

    def __len__(self):
        return len(self.buffer)


class ToyPOMDP:
    """Vectorised partially observable chain: the agent only sees a noisy slice of the state."""

    def __init__(self, num_envs, obs_dim, num_actions):
        g = torch.Generator().manual_seed(3)
        self.effect = torch.randn(num_actions, 2 * obs_dim, generator=g) * 0.2
        self.state = torch.randn(num_envs, 2 * obs_dim, generator=g)
        self.obs_dim = obs_dim

    def observe(self):
        return self.state[:, : self.obs_dim].clone()

    def step(self, action, noise):
        self.state = 0.95 * self.state + self.effect[action]
        reward = self.state[:, self.obs_dim:].mean(dim=1) + noise
        return self.observe(), reward


class DRQNAgent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.q_net = RecurrentQNet(cfg.obs_dim, cfg.hidden_dim, cfg.num_actions)
        self.target_net = RecurrentQNet(cfg.obs_dim, cfg.hidden_dim, cfg.num_actions)
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=cfg.lr)
        self.replay = SequenceReplay(capacity=4, seq_len=cfg.seq_len)
        self.hidden = self.q_net.init_hidden(cfg.num_envs)
        self.steps = 0

    def act(self, obs):
        q_values, self.hidden = self.q_net(obs, self.hidden)  # TLK103
        greedy = q_values.argmax(dim=-1)
        explore = torch.rand(greedy.shape) < self.cfg.epsilon
        random_actions = torch.randint(0, self.cfg.num_actions, greedy.shape)
        return torch.where(explore, random_actions, greedy)

    def update(self):
        if len(self.replay) < 2:
            return 0.0
        obs, act, rew = self.replay.sample(self.cfg.batch_size)
        q = self.q_net.unroll(obs[:-1]).gather(-1, act[:-1].unsqueeze(-1)).squeeze(-1)
        with torch.no_grad():
            next_q = self.target_net.unroll(obs[1:]).max(dim=-1).values
            target = rew[:-1] + self.cfg.gamma * next_q
        loss = F.smooth_l1_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        if self.steps % self.cfg.target_update_period == 0:
            self.target_net.load_state_dict(self.q_net.state_dict())
        return loss.item()


def make_batches(n):
    torch.manual_seed(0)
    # per environment step: the observation noise on the reward signal
    return [float(v) for v in torch.randn(n) * 0.05]


def run(batches):
    random.seed(0)
    cfg = DRQNConfig
    agent = DRQNAgent(cfg)
    env = ToyPOMDP(cfg.num_envs, cfg.obs_dim, cfg.num_actions)
    obs = env.observe()
    last_loss = 0.0
    for noise in batches:
        action = agent.act(obs)
        next_obs, reward = env.step(action, noise)
        agent.replay.add(obs, action, reward)
        obs = next_obs
        last_loss = agent.update()
    return last_loss
