# Source: https://github.com/pytorch/examples/issues/151
# Shape: the policy keeps each step's attached log-prob in self.saved_log_probs, but finish_episode backwards them at the end of the episode and clears the list, so no graph survives the episode.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

eps = 1e-8


class Policy(nn.Module):
    def __init__(self, obs_dim=8, hidden=64, num_actions=3):
        super().__init__()
        self.affine1 = nn.Linear(obs_dim, hidden)
        self.dropout = nn.Dropout(p=0.1)
        self.affine2 = nn.Linear(hidden, num_actions)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.affine2(x), dim=1)


class ToyEnv:
    def __init__(self, obs_dim=8, num_actions=3, length=12):
        g = torch.Generator().manual_seed(5)
        self.drift = torch.randn(num_actions, obs_dim, generator=g) * 0.3
        self.obs_dim, self.length = obs_dim, length

    def reset(self, seed):
        g = torch.Generator().manual_seed(seed)
        self.state = torch.randn(1, self.obs_dim, generator=g)
        self.t = 0
        return self.state

    def step(self, action):
        self.state = 0.8 * self.state + self.drift[action].unsqueeze(0)
        self.t += 1
        reward = float(-self.state.abs().mean())
        return self.state, reward, self.t >= self.length


class Reinforce:
    def __init__(self, gamma=0.99, lr=1e-2):
        self.policy = Policy()
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.gamma = gamma

    def select_action(self, state):
        probs = self.policy(state)
        m = Categorical(probs)
        action = m.sample()
        self.policy.saved_log_probs.append(m.log_prob(action))
        return action.item()

    def finish_episode(self):
        R = 0
        policy_loss = []
        returns = []
        for r in self.policy.rewards[::-1]:
            R = r + self.gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(self.policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        self.optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        self.optimizer.step()
        del self.policy.rewards[:]
        del self.policy.saved_log_probs[:]
        return policy_loss.item()


def make_batches(n):
    torch.manual_seed(0)
    # one environment seed per episode
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    env = ToyEnv()
    agent = Reinforce()
    running_reward = 0.0
    for seed in batches:
        state, ep_reward, done = env.reset(seed), 0.0, False
        while not done:
            action = agent.select_action(state)
            state, reward, done = env.step(action)
            agent.policy.rewards.append(reward)
            ep_reward += reward
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        agent.finish_episode()
    return running_reward
