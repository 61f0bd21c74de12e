# Source: https://github.com/google/brax/pull/152
# Shape: a PyTorch PPO loop driven by a step counter (while total_steps < num_timesteps) collects its rollouts in a helper under torch.no_grad() and sums each update's loss with float(loss), the fix the report proposed, so the running total is a Python number.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent(nn.Module):
    def __init__(self, obs_size, act_size, hidden=64):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_size, hidden), nn.SiLU(), nn.Linear(hidden, act_size * 2))
        self.value = nn.Sequential(nn.Linear(obs_size, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def dist(self, obs):
        loc, scale = self.policy(obs).chunk(2, dim=-1)
        return torch.distributions.Normal(loc, F.softplus(scale) + 1e-3)

    def loss(self, obs, actions, advantages, returns, old_logp, clip=0.3):
        logp = self.dist(obs).log_prob(actions).sum(-1)
        ratio = torch.exp(logp - old_logp)
        policy_loss = -torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
        value_loss = (self.value(obs).squeeze(-1) - returns).pow(2).mean()
        return policy_loss + 0.5 * value_loss


def unroll(agent, env, obs, length):
    observations, actions, rewards, logps = [], [], [], []
    with torch.no_grad():
        for _ in range(length):
            d = agent.dist(obs)
            act = d.sample()
            observations.append(obs)
            actions.append(act)
            logps.append(d.log_prob(act).sum(-1))
            obs, reward, done, _ = env.step(act)
            rewards.append(reward)
    return obs, torch.stack(observations), torch.stack(actions), torch.stack(rewards), torch.stack(logps)


def train(agent, env, num_timesteps=30_000_000, unroll_length=5, num_envs=2048, lr=3e-4):
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr)
    obs = env.reset()
    total_steps = 0
    total_loss = 0.0
    updates = 0
    while total_steps < num_timesteps:
        obs, observations, actions, rewards, logps = unroll(agent, env, obs, unroll_length)
        returns = rewards.flip(0).cumsum(0).flip(0)
        advantages = returns - returns.mean()
        loss = agent.loss(observations, actions, advantages, returns, logps)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += float(loss)
        updates += 1
        total_steps += unroll_length * num_envs
    print("mean loss", total_loss / max(updates, 1))
