# Source: https://github.com/Swopper050/foundations-drl/blob/master/algorithms/reinforce/discrete_reinforce_agent.py
# Shape: fixed twin: loss_sum accumulates loss.item(); the memory still stores attached log-probs per episode but is reset() right after each update (on-policy), so nothing outlives the update.
# Verdict: clean
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


def create_mlp(sizes, hidden_activation=nn.ReLU, output_activation=nn.Identity):
    layers = []
    for j in range(len(sizes) - 1):
        act = hidden_activation if j < len(sizes) - 2 else output_activation
        layers += [nn.Linear(sizes[j], sizes[j + 1]), act()]
    return nn.Sequential(*layers)


def calculate_returns(rewards, *, gamma):
    returns = torch.zeros(len(rewards))
    future = 0.0
    for t in reversed(range(len(rewards))):
        future = rewards[t] + gamma * future
        returns[t] = future
    return returns


class ReinforceReplayMemory:
    """On-policy memory: everything is discarded after an update."""

    def __init__(self, *, experience_keys):
        self.experience_keys = experience_keys
        self.reset()

    def reset(self):
        self.stored_episodes = {key: [] for key in self.experience_keys}
        self.current_episode = {key: [] for key in self.experience_keys}

    def store_experience(self, experience):
        for key, value in experience.items():
            self.current_episode[key].append(value)
        if experience["dones"]:
            for key in self.experience_keys:
                self.stored_episodes[key].append(self.current_episode[key])
            self.current_episode = {key: [] for key in self.experience_keys}

    def sample(self):
        return self.stored_episodes


class DiscreteReinforceAgent(nn.Module):
    def __init__(self, *, obs_dim, act_dim, hidden_sizes=(64, 32)):
        super().__init__()
        self.net = create_mlp([obs_dim] + list(hidden_sizes) + [act_dim])
        self.optimizer = optim.Adam(self.parameters(), lr=0.001)
        self.memory = ReinforceReplayMemory(experience_keys=["log_probs", "rewards", "dones"])

    def act(self, observation):
        dist = Categorical(logits=self.net(observation))
        action = dist.sample()
        return action.item(), dist.log_prob(action)

    def store_step(self, log_prob, reward, done):
        self.memory.store_experience({"log_probs": log_prob, "rewards": reward, "dones": done})

    def perform_training_step(self, *, gamma):
        episodes = self.memory.sample()
        losses = []
        for log_probs, rewards in zip(episodes["log_probs"], episodes["rewards"]):
            returns = calculate_returns(rewards, gamma=gamma)
            losses.append(torch.sum(-torch.stack(log_probs) * returns))
        loss = torch.stack(losses).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.memory.reset()
        return loss


class ToyEnv:
    def __init__(self, observations, horizon=8):
        self.observations = observations
        self.horizon = horizon

    def reset(self):
        self.t = 0
        return self.observations[0]

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == (self.t % 2) else 0.0
        return self.observations[self.t], reward, self.t >= self.horizon


class ReinforceTrainer:
    def __init__(self, env, agent, *, gamma=0.99, episodes_per_update=2, log_every=50):
        self.env, self.agent = env, agent
        self.gamma = gamma
        self.episodes_per_update = episodes_per_update
        self.log_every = log_every
        self.loss_sum = 0.0
        self.n_updates = 0
        self.episode_returns = []

    def run_episode(self):
        obs, done, ep_return = self.env.reset(), False, 0.0
        while not done:
            action, log_prob = self.agent.act(obs)
            obs, reward, done = self.env.step(action)
            self.agent.store_step(log_prob, reward, done)
            ep_return += reward
        self.episode_returns.append(ep_return)

    def train(self, n_updates):
        for update in range(n_updates):
            for _ in range(self.episodes_per_update):
                self.run_episode()
            loss = self.agent.perform_training_step(gamma=self.gamma)
            self.loss_sum += loss.item()
            self.n_updates += 1
            if self.n_updates % self.log_every == 0:
                print(f"update {self.n_updates}: loss {float(self.loss_sum) / self.n_updates:.3f}")
        return self


def make_batches(horizon=8, obs_dim=4, seed=0):
    torch.manual_seed(seed)
    return torch.randn(horizon + 1, obs_dim)


def run(steps):
    torch.manual_seed(0)
    env = ToyEnv(make_batches())
    agent = DiscreteReinforceAgent(obs_dim=4, act_dim=2)
    return ReinforceTrainer(env, agent).train(steps)


if __name__ == "__main__":
    run(10)
