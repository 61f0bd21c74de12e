# Source: https://github.com/pytorch/examples/blob/main/reinforcement_learning/actor_critic.py
# Shape: A2C: values and log-probs are appended to lists created fresh for each episode, and the episode ends with a backward through all of them.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.shared = nn.Linear(obs_dim, 128)
        self.actor = nn.Linear(128, n_actions)
        self.critic = nn.Linear(128, 1)

    def forward(self, x):
        h = F.relu(self.shared(x))
        return F.softmax(self.actor(h), dim=-1), self.critic(h)


def train(env, episodes=1000, gamma=0.99):
    ac = ActorCritic()
    optimizer = torch.optim.Adam(ac.parameters(), lr=3e-2)
    for episode in range(episodes):
        log_probs, values, rewards = [], [], []
        state, _ = env.reset()
        done = False
        while not done:
            probs, value = ac(torch.as_tensor(state, dtype=torch.float32))
            dist = Categorical(probs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            values.append(value.squeeze(-1))
            state, reward, terminated, truncated, _ = env.step(action.item())
            rewards.append(reward)
            done = terminated or truncated
        returns, running = [], 0.0
        for r in reversed(rewards):
            running = r + gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns)
        values_t = torch.stack(values)
        advantage = returns - values_t.detach()
        loss = -(torch.stack(log_probs) * advantage).sum() + F.smooth_l1_loss(values_t, returns, reduction="sum")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
