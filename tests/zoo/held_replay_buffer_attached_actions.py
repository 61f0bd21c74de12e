# Source: https://github.com/oxwhirl/pymarl/pull/73
# Shape: an episode runner picks actions with the agent network (grad enabled) and stores the attached Q-values into a replay buffer that lives for the whole run; the learner recomputes Q-values from observations, so nothing ever backwards through the stored ones.
# Verdict: leak
import random
from collections import deque

import torch
import torch.nn as nn


class QAgent(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 256), nn.ReLU(), nn.Linear(256, n_actions))

    def forward(self, obs):
        return self.body(obs)


def run(env, agent: QAgent, episodes, epsilon=0.05, batch_size=64, gamma=0.99):
    replay = deque(maxlen=1_000_000)
    optimizer = torch.optim.RMSprop(agent.parameters(), lr=5e-4)
    for episode in range(episodes):
        obs = torch.as_tensor(env.reset(), dtype=torch.float32)
        done = False
        while not done:
            q_values = agent(obs)
            action = random.randrange(q_values.numel()) if random.random() < epsilon else int(q_values.argmax())
            next_obs, reward, done, _ = env.step(action)
            next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
            replay.append((obs, action, q_values, reward, next_obs, done))  # TLK102
            obs = next_obs
        if len(replay) >= batch_size:
            sample = random.sample(replay, batch_size)
            o = torch.stack([s[0] for s in sample])
            a = torch.tensor([s[1] for s in sample])
            r = torch.tensor([s[3] for s in sample], dtype=torch.float32)
            o2 = torch.stack([s[4] for s in sample])
            d = torch.tensor([s[5] for s in sample], dtype=torch.float32)
            with torch.no_grad():
                target = r + gamma * (1 - d) * agent(o2).max(dim=1).values
            td_loss = nn.functional.mse_loss(agent(o).gather(1, a[:, None]).squeeze(1), target)
            optimizer.zero_grad()
            td_loss.backward()
            optimizer.step()
