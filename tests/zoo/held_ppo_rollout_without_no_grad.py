# Source: https://github.com/ray-project/ray/pull/7238
# Shape: a PPO rollout evaluates the policy with grad enabled and appends the attached value and log_prob of every env step; the update only uses them detached (it recomputes both), so each step's graph is held for the whole rollout and never consumed.
# Verdict: leak
import torch
import torch.nn as nn
from torch.distributions import Normal


class Agent(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, act_dim))
        self.v = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def dist(self, obs):
        return Normal(self.pi(obs), self.log_std.exp())


def collect(env, agent, horizon=2048):
    observations, actions, rewards, values, log_probs = [], [], [], [], []
    obs = torch.as_tensor(env.reset()[0], dtype=torch.float32)
    for t in range(horizon):
        dist = agent.dist(obs)
        action = dist.sample()
        value = agent.v(obs).squeeze(-1)
        values.append(value)  # TLK102
        log_probs.append(dist.log_prob(action).sum())  # TLK102
        observations.append(obs)
        actions.append(action)
        next_obs, reward, terminated, truncated, _ = env.step(action.numpy())
        rewards.append(float(reward))
        obs = torch.as_tensor(next_obs, dtype=torch.float32)
        if terminated or truncated:
            obs = torch.as_tensor(env.reset()[0], dtype=torch.float32)
    return observations, actions, rewards, values, log_probs


def update(agent, optimizer, rollout, clip=0.2, gamma=0.99):
    observations, actions, rewards, values, log_probs = rollout
    obs = torch.stack(observations)
    acts = torch.stack(actions)
    old_log_probs = torch.stack(log_probs).detach()
    returns, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        returns.insert(0, running)
    returns = torch.tensor(returns)
    advantages = returns - torch.stack(values).detach()
    for _ in range(10):
        new_log_probs = agent.dist(obs).log_prob(acts).sum(-1)
        ratio = (new_log_probs - old_log_probs).exp()
        policy_loss = -torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
        value_loss = (agent.v(obs).squeeze(-1) - returns).pow(2).mean()
        optimizer.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        optimizer.step()
