# Source: https://github.com/ray-project/ray/issues/6962
# Shape: the value trace keeps detached copies of the critic outputs; the per-episode log_prob/value lists are attached but are consumed by the same episode's loss and dropped.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


class A2CAgent:
    def __init__(self, gamma=0.97, ent_coef=0.01):
        self.net = ActorCritic()
        self.opt = torch.optim.RMSprop(self.net.parameters(), lr=7e-4)
        self.gamma, self.ent_coef = gamma, ent_coef
        self.value_trace = []
        self.return_trace = []

    def play_episode(self, episode):
        obs_seq, reward_fn = episode
        log_probs, values, rewards, entropies = [], [], [], []
        for obs in obs_seq:
            dist, value = self.net(obs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value)
            rewards.append(float(reward_fn[action.item()]))
        return log_probs, values, rewards, entropies

    def update(self, episode):
        log_probs, values, rewards, entropies = self.play_episode(episode)
        returns = discounted_returns(rewards, self.gamma)
        values_t = torch.stack(values)
        adv = returns - values_t.detach()
        policy_loss = -(torch.stack(log_probs) * adv).sum()
        value_loss = F.smooth_l1_loss(values_t, returns, reduction="sum")
        loss = policy_loss + 0.5 * value_loss - self.ent_coef * torch.stack(entropies).sum()
        self.opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
        self.opt.step()
        self.value_trace.extend(v.detach() for v in values)
        self.return_trace.extend(returns.tolist())

    def explained_variance(self):
        v = torch.stack(self.value_trace)
        r = torch.tensor(self.return_trace)
        return 1.0 - float((r - v).var() / r.var().clamp_min(1e-8))


def make_batches(n, steps=5, obs_dim=6, n_actions=3):
    return [(list(torch.randn(steps, obs_dim)), torch.randn(n_actions)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    agent = A2CAgent()
    for episode in batches:
        agent.update(episode)
    agent.explained_variance()
