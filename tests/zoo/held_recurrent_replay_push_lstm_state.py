# Source: https://github.com/Metta-AI/metta/pull/1139
# Shape: an R2D2-style actor steps a recurrent Q-network with grad enabled and pushes the LSTM (h, c) it got back into a long-lived replay buffer before detaching its own copy, so every stored transition keeps its step's graph alive.
# Verdict: leak
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", "obs action reward next_obs hidden")


class ReplayBuffer:
    def __init__(self, capacity=10_000):
        self.memory = deque(maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))  # TLK102

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class RecurrentQNet(nn.Module):
    def __init__(self, obs_dim=10, hidden=24, n_actions=4):
        super().__init__()
        self.enc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.q = nn.Linear(hidden, n_actions)

    def forward(self, obs, hidden):
        h, c = self.lstm(torch.relu(self.enc(obs)), hidden)
        return self.q(h), (h, c)


class Agent:
    def __init__(self):
        self.net = RecurrentQNet()
        self.target = RecurrentQNet()
        self.target.load_state_dict(self.net.state_dict())
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.replay = ReplayBuffer()
        self.hidden = (torch.zeros(1, 24), torch.zeros(1, 24))

    def act(self, obs, next_obs, reward):
        q, (h, c) = self.net(obs, self.hidden)
        action = int(q.argmax(-1))
        self.replay.push(obs, action, reward, next_obs, (h, c))
        self.hidden = (h.detach(), c.detach())
        return action

    def learn(self, batch_size=8, gamma=0.99):
        if len(self.replay) < batch_size:
            return None
        batch = self.replay.sample(batch_size)
        obs = torch.cat([t.obs for t in batch])
        next_obs = torch.cat([t.next_obs for t in batch])
        h0 = torch.cat([t.hidden[0] for t in batch]).detach()
        c0 = torch.cat([t.hidden[1] for t in batch]).detach()
        actions = torch.tensor([t.action for t in batch])
        rewards = torch.tensor([t.reward for t in batch])
        q, _ = self.net(obs, (h0, c0))
        q = q.gather(1, actions[:, None]).squeeze(1)
        with torch.no_grad():
            q_next, _ = self.target(next_obs, (h0, c0))
            target = rewards + gamma * q_next.max(-1).values
        loss = F.smooth_l1_loss(q, target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


def make_loader(n=30):
    g = torch.Generator().manual_seed(5)
    return [(torch.randn(1, 10, generator=g), torch.randn(1, 10, generator=g), float(torch.rand(1, generator=g)))
            for _ in range(n)]


def main(loader=None):
    random.seed(0)
    torch.manual_seed(0)
    agent = Agent()
    for obs, next_obs, reward in loader if loader is not None else make_loader():
        agent.act(obs, next_obs, reward)
        agent.learn()
    print("replay size", len(agent.replay))


if __name__ == "__main__":
    main()
