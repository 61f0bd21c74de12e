# Source: https://github.com/SforAiDl/genrl/blob/master/genrl/agents/deep/a2c/a2c.py
# Shape: With a shared actor-critic trunk, update_params backwards the critic loss with retain_graph=True although nothing backwards that graph again, and logs the entropy term as a tensor in self.logs; the logged tensor pins each update's retained graph (trunk activations included) until the logs are emptied.
# Verdict: leak
import math
from collections import namedtuple
from typing import Any, Dict

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as opt
from torch.distributions import Categorical


def safe_mean(values):
    return float("nan") if len(values) == 0 else sum(float(v) for v in values) / len(values)


class ToyBalanceEnv:
    """Small CartPole-like task with discrete actions (observation: 4 floats)."""

    def __init__(self, seed=0, horizon=100):
        self.g = torch.Generator().manual_seed(seed)
        self.horizon = horizon
        self.obs_dim = 4
        self.n_actions = 2

    def reset(self):
        self.t = 0
        self.s = (torch.rand(4, generator=self.g) - 0.5) * 0.1
        return self.s.clone()

    def step(self, action):
        x, v, th, w = self.s.tolist()
        f = 1.0 if action == 1 else -1.0
        w += 0.02 * (9.8 * math.sin(th) - 2.0 * f * math.cos(th))
        th += 0.02 * w
        v += 0.02 * f
        x += 0.02 * v
        self.s = torch.tensor([x, v, th, w])
        self.t += 1
        done = abs(th) > 0.3 or abs(x) > 2.4 or self.t >= self.horizon
        return self.s.clone(), 1.0, done, {}


class SharedActorCritic(nn.Module):
    """Actor and critic heads on top of a shared feature extractor."""

    def __init__(self, state_dim, action_dim, shared_layers=(64, 64), policy_layers=(32,), value_layers=(32,)):
        super().__init__()
        self.shared = self._mlp(state_dim, shared_layers)
        self.actor = nn.Sequential(self._mlp(shared_layers[-1], policy_layers), nn.Linear(policy_layers[-1], action_dim))
        self.critic = nn.Sequential(self._mlp(shared_layers[-1], value_layers), nn.Linear(value_layers[-1], 1))

    @staticmethod
    def _mlp(inp, sizes):
        layers = []
        for out in sizes:
            layers += [nn.Linear(inp, out), nn.Tanh()]
            inp = out
        return nn.Sequential(*layers)

    def get_features(self, state):
        return self.shared(state)

    def get_action(self, state, deterministic=False):
        dist = Categorical(logits=self.actor(self.get_features(state)))
        action = dist.probs.argmax(-1) if deterministic else dist.sample()
        return action, dist

    def get_value(self, state):
        return self.critic(self.get_features(state)).squeeze(-1)

    def evaluate(self, states, actions):
        features = self.get_features(states)
        dist = Categorical(logits=self.actor(features))
        values = self.critic(features).squeeze(-1)
        return values, dist.log_prob(actions), dist.entropy()


RolloutBufferSamples = namedtuple("RolloutBufferSamples",
                                  ["observations", "actions", "old_values", "old_log_prob", "advantages", "returns"])


class RolloutBuffer:
    def __init__(self, buffer_size, obs_dim, gamma=0.99, gae_lambda=1.0):
        self.buffer_size = buffer_size
        self.obs_dim = obs_dim
        self.gamma = gamma
        self.gae_lambda = gae_lambda
        self.reset()

    def reset(self):
        self.observations = torch.zeros(self.buffer_size, self.obs_dim)
        self.actions = torch.zeros(self.buffer_size, dtype=torch.long)
        self.rewards = torch.zeros(self.buffer_size)
        self.dones = torch.zeros(self.buffer_size)
        self.values = torch.zeros(self.buffer_size)
        self.log_probs = torch.zeros(self.buffer_size)
        self.advantages = torch.zeros(self.buffer_size)
        self.returns = torch.zeros(self.buffer_size)
        self.pos = 0
        self.full = False

    def add(self, obs, action, reward, done, value, log_prob):
        self.observations[self.pos] = obs
        self.actions[self.pos] = action
        self.rewards[self.pos] = reward
        self.dones[self.pos] = float(done)
        self.values[self.pos] = value
        self.log_probs[self.pos] = log_prob
        self.pos += 1
        self.full = self.pos == self.buffer_size

    def compute_returns_and_advantage(self, last_value, done):
        last_gae_lam = 0.0
        for step in reversed(range(self.buffer_size)):
            if step == self.buffer_size - 1:
                next_non_terminal = 1.0 - float(done)
                next_value = last_value
            else:
                next_non_terminal = 1.0 - self.dones[step]
                next_value = self.values[step + 1]
            delta = self.rewards[step] + self.gamma * next_value * next_non_terminal - self.values[step]
            last_gae_lam = delta + self.gamma * self.gae_lambda * next_non_terminal * last_gae_lam
            self.advantages[step] = last_gae_lam
        self.returns = self.advantages + self.values

    def get(self, batch_size):
        indices = torch.arange(self.buffer_size)
        for start in range(0, self.buffer_size, batch_size):
            idx = indices[start:start + batch_size]
            yield RolloutBufferSamples(self.observations[idx], self.actions[idx], self.values[idx],
                                       self.log_probs[idx], self.advantages[idx], self.returns[idx])


class OnPolicyAgent:
    def __init__(self, network, env, batch_size=32, gamma=0.99, lr_policy=7e-4, lr_value=7e-4,
                 rollout_size=32, seed=0):
        self.network = network
        self.env = env
        self.batch_size = batch_size
        self.gamma = gamma
        self.lr_policy = lr_policy
        self.lr_value = lr_value
        self.rollout_size = rollout_size
        torch.manual_seed(seed)
        self.rollout = RolloutBuffer(rollout_size, env.obs_dim, gamma=gamma)
        self.rewards = []
        self._episode_reward = 0.0
        self._state = env.reset()

    def collect_rollouts(self):
        self.rollout.reset()
        done = False
        with torch.no_grad():
            for _ in range(self.rollout_size):
                action, value, log_prob = self.select_action(self._state)
                next_state, reward, done, _ = self.env.step(int(action))
                self.rollout.add(self._state, action, reward, done, value, log_prob)
                self._episode_reward += reward
                self._state = next_state
                if done:
                    self.rewards.append(self._episode_reward)
                    self._episode_reward = 0.0
                    self._state = self.env.reset()
            last_value = self.ac.get_value(self._state)
        self.get_traj_loss(last_value, done)


class A2C(OnPolicyAgent):
    """Advantage Actor Critic algorithm (A2C), shared actor-critic network."""

    def __init__(self, *args, value_coeff: float = 0.5, entropy_coeff: float = 0.01, **kwargs):
        super(A2C, self).__init__(*args, **kwargs)
        self.value_coeff = value_coeff
        self.entropy_coeff = entropy_coeff
        self.empty_logs()
        self._create_model()

    def _create_model(self) -> None:
        self.ac = self.network
        actor_params = list(self.ac.shared.parameters()) + list(self.ac.actor.parameters())
        self.optimizer_policy = opt.Adam(actor_params, lr=self.lr_policy)
        self.optimizer_value = opt.Adam(self.ac.critic.parameters(), lr=self.lr_value)

    def select_action(self, state, deterministic: bool = False):
        action, dist = self.ac.get_action(state, deterministic=deterministic)
        value = self.ac.get_value(state)
        return action, value, dist.log_prob(action)

    def get_traj_loss(self, values, dones) -> None:
        self.rollout.compute_returns_and_advantage(values.detach(), dones)

    def evaluate_actions(self, states, actions):
        return self.ac.evaluate(states, actions)

    def update_params(self) -> None:
        for rollout in self.rollout.get(self.batch_size):
            actions = rollout.actions.long().flatten()
            values, log_prob, entropy = self.evaluate_actions(rollout.observations, actions)

            policy_loss = rollout.advantages * log_prob
            policy_loss = -torch.mean(policy_loss)
            self.logs["policy_loss"].append(policy_loss.item())

            value_loss = self.value_coeff * F.mse_loss(rollout.returns, values)
            self.logs["value_loss"].append(torch.mean(value_loss).item())

            entropy_loss = -torch.mean(entropy)
            self.logs["policy_entropy"].append(entropy_loss)  # TLK102

            actor_loss = policy_loss + self.entropy_coeff * entropy_loss

            self.optimizer_policy.zero_grad()
            self.optimizer_value.zero_grad()
            # the critic loss goes through the same shared features: keep them for the second backward
            actor_loss.backward(retain_graph=True)
            value_loss.backward(retain_graph=True)  # TLK201
            torch.nn.utils.clip_grad_norm_(self.ac.parameters(), 0.5)
            self.optimizer_policy.step()
            self.optimizer_value.step()

    def get_logging_params(self) -> Dict[str, Any]:
        logs = {
            "policy_loss": safe_mean(self.logs["policy_loss"]),
            "value_loss": safe_mean(self.logs["value_loss"]),
            "policy_entropy": safe_mean(self.logs["policy_entropy"]),
            "mean_reward": safe_mean(self.rewards),
        }
        self.empty_logs()
        return logs

    def empty_logs(self):
        self.logs = {}
        self.logs["policy_loss"] = []
        self.logs["value_loss"] = []
        self.logs["policy_entropy"] = []
        self.rewards = []


class OnPolicyTrainer:
    def __init__(self, agent, log_interval=1000, epochs=10):
        self.agent = agent
        self.log_interval = log_interval
        self.epochs = epochs
        self.history = []

    def train(self):
        for epoch in range(1, self.epochs + 1):
            self.agent.collect_rollouts()
            self.agent.update_params()
            if epoch % self.log_interval == 0:
                self.history.append(self.agent.get_logging_params())
        return self.history


def make_batches(seed=0):
    return ToyBalanceEnv(seed=seed)


def run(steps):
    torch.manual_seed(0)
    env = make_batches(seed=0)
    network = SharedActorCritic(env.obs_dim, env.n_actions)
    agent = A2C(network, env, batch_size=32, rollout_size=32)
    trainer = OnPolicyTrainer(agent, log_interval=1000, epochs=steps)
    trainer.train()
    return agent


if __name__ == "__main__":
    run(10)
