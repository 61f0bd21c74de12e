# Source: https://github.com/UoA-CARES/cares_reinforcement_learning/pull/317
# Shape: look-alike, as changed in the PR: the TD errors are built from q_values.detach(), so the priorities never touch the critic graph; they leave _update_critic() as a NumPy array.
# Verdict: clean
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, observation_size, num_actions, hidden=64, log_std_bounds=(-20, 2)):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(observation_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, num_actions)
        self.log_std = nn.Linear(hidden, num_actions)
        self.log_std_bounds = log_std_bounds

    def forward(self, state):
        h = self.net(state)
        mean, log_std = self.mean(h), self.log_std(h).clamp(*self.log_std_bounds)
        std = log_std.exp()
        u = mean + std * torch.randn_like(mean)
        action = torch.tanh(u)
        log_pi = (torch.distributions.Normal(mean, std).log_prob(u) - torch.log(1 - action.pow(2) + 1e-6)).sum(1, keepdim=True)
        return action, log_pi, torch.tanh(mean)


class Critic(nn.Module):
    def __init__(self, observation_size, num_actions, hidden=64):
        super().__init__()
        self.Q1 = nn.Sequential(nn.Linear(observation_size + num_actions, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.Q2 = nn.Sequential(nn.Linear(observation_size + num_actions, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, state, action):
        sa = torch.cat([state, action], dim=1)
        return self.Q1(sa), self.Q2(sa)


class MemoryBuffer:
    """Prioritised replay: priorities are kept as a NumPy array."""

    def __init__(self, max_capacity=5000, beta=0.4):
        self.states, self.actions, self.rewards, self.next_states, self.dones = [], [], [], [], []
        self.priorities = np.zeros(max_capacity, dtype=np.float64)
        self.max_priority = 1.0
        self.beta = beta

    def add(self, state, action, reward, next_state, done):
        self.priorities[len(self.states)] = self.max_priority
        for store, value in zip((self.states, self.actions, self.rewards, self.next_states, self.dones),
                                (state, action, reward, next_state, done)):
            store.append(value)

    def sample_priority(self, batch_size):
        p = self.priorities[:len(self.states)]
        p = p / p.sum()
        indices = np.random.choice(len(self.states), batch_size, p=p)
        weights = (len(self.states) * p[indices]) ** (-self.beta)
        weights /= weights.max()
        batch = [np.array([store[i] for i in indices]) for store in
                 (self.states, self.actions, self.rewards, self.next_states, self.dones)]
        return (*batch, indices, weights)

    def update_priorities(self, indices, priorities):
        self.priorities[indices] = priorities
        self.max_priority = max(self.max_priority, float(priorities.max()))


class SAC:
    def __init__(self, observation_size, num_actions, gamma=0.99, tau=0.005, per_alpha=0.6, min_priority=1.0):
        self.actor_net = Actor(observation_size, num_actions)
        self.critic_net = Critic(observation_size, num_actions)
        self.target_critic_net = copy.deepcopy(self.critic_net).requires_grad_(False)
        self.gamma, self.tau = gamma, tau
        self.per_alpha, self.min_priority = per_alpha, min_priority
        self.target_entropy = -num_actions
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.actor_net_optimiser = torch.optim.Adam(self.actor_net.parameters(), lr=3e-4)
        self.critic_net_optimiser = torch.optim.Adam(self.critic_net.parameters(), lr=3e-4)
        self.log_alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)
        self.learn_counter = 0

    @property
    def alpha(self):
        return self.log_alpha.exp()

    def _update_critic(self, states, actions, rewards, next_states, dones, weights):
        with torch.no_grad():
            next_actions, next_log_pi, _ = self.actor_net(next_states)
            target_q_values_one, target_q_values_two = self.target_critic_net(next_states, next_actions)
            target_q_values = torch.minimum(target_q_values_one, target_q_values_two) - self.alpha.detach() * next_log_pi
            q_target = rewards + self.gamma * (1 - dones) * target_q_values

        q_values_one, q_values_two = self.critic_net(states, actions)

        td_error_one = (q_values_one.detach() - q_target).abs()
        td_error_two = (q_values_two.detach() - q_target).abs()

        critic_loss_one = (F.mse_loss(q_values_one, q_target, reduction="none") * weights).mean()
        critic_loss_two = (F.mse_loss(q_values_two, q_target, reduction="none") * weights).mean()
        critic_loss_total = critic_loss_one + critic_loss_two

        self.critic_net_optimiser.zero_grad()
        critic_loss_total.backward()
        self.critic_net_optimiser.step()

        # Update the Priorities - PER only
        priorities = (
            torch.max(td_error_one, td_error_two)
            .clamp(self.min_priority)
            .pow(self.per_alpha)
            .cpu()
            .numpy()
            .flatten()
        )
        info = {"critic_loss_one": critic_loss_one.item(), "critic_loss_two": critic_loss_two.item(),
                "critic_loss_total": critic_loss_total.item()}
        return info, priorities

    def _update_actor_alpha(self, states):
        pi, log_pi, _ = self.actor_net(states)
        qf1_pi, qf2_pi = self.critic_net(states, pi)
        actor_loss = ((self.alpha.detach() * log_pi) - torch.minimum(qf1_pi, qf2_pi)).mean()
        self.actor_net_optimiser.zero_grad()
        actor_loss.backward()
        self.actor_net_optimiser.step()

        alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
        self.log_alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.log_alpha_optimizer.step()
        return {"actor_loss": actor_loss.item(), "alpha_loss": alpha_loss.item()}

    def train_policy(self, memory, batch_size=32):
        self.learn_counter += 1
        states, actions, rewards, next_states, dones, indices, weights = memory.sample_priority(batch_size)
        states, actions, next_states = (torch.FloatTensor(x) for x in (states, actions, next_states))
        rewards, dones, weights = (torch.FloatTensor(x).unsqueeze(1) for x in (rewards, dones, weights))

        info, priorities = self._update_critic(states, actions, rewards, next_states, dones, weights)
        if self.learn_counter % 2 == 0:
            info |= self._update_actor_alpha(states)
            info["alpha"] = self.alpha.item()
            with torch.no_grad():
                for param, target_param in zip(self.critic_net.parameters(), self.target_critic_net.parameters()):
                    target_param.copy_(self.tau * param + (1 - self.tau) * target_param)
        memory.update_priorities(indices, priorities)
        return info


def make_batches(n, observation_size=5, num_actions=2):
    rng = np.random.RandomState(0)
    return [(rng.randn(observation_size).astype(np.float32), rng.uniform(-1, 1, num_actions).astype(np.float32),
             float(rng.randn()), rng.randn(observation_size).astype(np.float32), float(rng.rand() < 0.05))
            for _ in range(n)]


def run(steps):
    torch.manual_seed(0)
    np.random.seed(0)
    agent = SAC(observation_size=5, num_actions=2)
    memory = MemoryBuffer()
    for transition in make_batches(128):
        memory.add(*transition)
    infos = [agent.train_policy(memory) for _ in range(steps)]
    return agent, memory, infos
