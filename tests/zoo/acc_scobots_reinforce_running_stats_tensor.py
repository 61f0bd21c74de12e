# Source: https://github.com/k4ntz/SCoBots/pull/4
# Shape: a REINFORCE trainer for object-centric Atari agents keeps per-run statistics on the trainer object: an exponential moving average of the policy loss and a running sum of the episode's mean entropy, updated after every episode's backward with the still-attached tensors, so each episode's policy graph chains onto the statistics ("fixed a bug causing memory leaks (was tracking tensors without detaching them)").
# Verdict: leak
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, n_features, n_actions, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, x):
        return Categorical(logits=self.net(x))


class ReinforceTrainer:
    def __init__(self, policy, lr=1e-3, gamma=0.97):
        self.policy = policy
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
        self.gamma = gamma
        self.running_loss = 0.0
        self.entropy_total = 0.0
        self.episodes = 0

    def returns(self, rewards):
        out, g = [], 0.0
        for r in reversed(rewards):
            g = r + self.gamma * g
            out.insert(0, g)
        out = torch.tensor(out)
        return (out - out.mean()) / (out.std() + 1e-8)

    def run_episode(self, env_steps):
        log_probs, entropies, rewards = [], [], []
        for features, reward in env_steps:
            dist = self.policy(features)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            rewards.append(reward)
        policy_loss = -(torch.stack(log_probs) * self.returns(rewards)).sum()
        self.optimizer.zero_grad()
        policy_loss.backward()
        self.optimizer.step()
        ep_entropy = torch.stack(entropies).mean()
        self.running_loss = 0.95 * self.running_loss + 0.05 * policy_loss  # TLK103
        self.entropy_total += ep_entropy  # TLK101
        self.episodes += 1
        return sum(rewards)

    def train(self, episodes):
        for ep, env_steps in enumerate(episodes):
            ret = self.run_episode(env_steps)
            if ep % 20 == 0:
                print(f"ep {ep} return {ret:.1f} loss {float(self.running_loss):.3f} entropy {float(self.entropy_total) / self.episodes:.3f}")
