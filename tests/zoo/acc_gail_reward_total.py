# Source: https://github.com/toshikwa/gail-airl-ppo.pytorch/issues/10
# Shape: the GAIL reward is computed by the discriminator with grad enabled and summed into self.total_gail_reward without .item(), so every rollout's discriminator graph stays chained to the running total.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal


def build_mlp(in_dim, out_dim, hidden=64):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, out_dim))


class GAILDiscrim(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = build_mlp(state_dim + action_dim, 1)

    def forward(self, states, actions):
        return self.net(torch.cat([states, actions], dim=-1))

    def calculate_reward(self, states, actions):
        # PPO maximizes r(s, a) = -log(1 - D(s, a)) where D(s, a) = sigmoid(logits).
        logits = self.forward(states, actions)
        return -F.logsigmoid(-logits).squeeze(-1)


class GaussianPolicy(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.mu = build_mlp(state_dim, action_dim)
        self.log_std = nn.Parameter(torch.full((action_dim,), -0.5))

    def dist(self, states):
        return Normal(self.mu(states), self.log_std.exp())


class ToyReacher:
    def __init__(self, state_dim, action_dim, num_envs):
        g = torch.Generator().manual_seed(7)
        self.A = torch.randn(action_dim, state_dim, generator=g) * 0.1
        self.state = torch.randn(num_envs, state_dim, generator=g)

    def step(self, actions):
        self.state = 0.9 * self.state + actions @ self.A
        return self.state.clone()


class GAIL:
    def __init__(self, state_dim, action_dim, expert_states, expert_actions, gamma=0.99):
        self.actor = GaussianPolicy(state_dim, action_dim)
        self.critic = build_mlp(state_dim, 1)
        self.disc = GAILDiscrim(state_dim, action_dim)
        self.optim_actor = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.optim_critic = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.optim_d = torch.optim.Adam(self.disc.parameters(), lr=3e-4)
        self.expert_states = expert_states
        self.expert_actions = expert_actions
        self.gamma = gamma
        self.total_gail_reward = 0.0
        self.num_updates = 0

    def rollout(self, env, horizon):
        states, actions, log_pis = [], [], []
        with torch.no_grad():
            for _ in range(horizon):
                s = env.state.clone()
                dist = self.actor.dist(s)
                a = dist.sample()
                states.append(s)
                actions.append(a)
                log_pis.append(dist.log_prob(a).sum(-1))
                env.step(a)
        return torch.stack(states), torch.stack(actions), torch.stack(log_pis)

    def update_disc(self, states, actions):
        idx = torch.randint(0, self.expert_states.size(0), (states.size(0),))
        logits_pi = self.disc(states, actions)
        logits_exp = self.disc(self.expert_states[idx], self.expert_actions[idx])
        loss_d = -F.logsigmoid(-logits_pi).mean() - F.logsigmoid(logits_exp).mean()
        self.optim_d.zero_grad()
        loss_d.backward()
        self.optim_d.step()
        return loss_d.item()

    def update_ppo(self, states, actions, rewards, log_pis_old, clip_eps=0.2):
        with torch.no_grad():
            values = self.critic(states).squeeze(-1)
            returns = torch.zeros_like(rewards)
            running = torch.zeros_like(rewards[0])
            for t in reversed(range(rewards.size(0))):
                running = rewards[t] + self.gamma * running
                returns[t] = running
            advantages = returns - values
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        loss_critic = (self.critic(states).squeeze(-1) - returns).pow(2).mean()
        self.optim_critic.zero_grad()
        loss_critic.backward()
        self.optim_critic.step()

        log_pis = self.actor.dist(states).log_prob(actions).sum(-1)
        ratios = (log_pis - log_pis_old).exp()
        loss_actor = -torch.min(ratios * advantages,
                                torch.clamp(ratios, 1 - clip_eps, 1 + clip_eps) * advantages).mean()
        self.optim_actor.zero_grad()
        loss_actor.backward()
        self.optim_actor.step()

    def update(self, env, horizon):
        states, actions, log_pis = self.rollout(env, horizon)
        flat_s, flat_a = states.flatten(0, 1), actions.flatten(0, 1)
        self.update_disc(flat_s, flat_a)
        rewards = self.disc.calculate_reward(flat_s, flat_a).view(horizon, -1)
        self.total_gail_reward += rewards.sum()  # TLK101
        self.num_updates += 1
        self.update_ppo(states, actions, rewards, log_pis)


def make_batches(n):
    torch.manual_seed(0)
    # rollout horizon per update (small curriculum)
    return [int(h) for h in torch.randint(6, 9, (n,))]


def run(batches):
    torch.manual_seed(1)
    state_dim, action_dim = 8, 2
    expert_states = torch.randn(128, state_dim)
    expert_actions = torch.tanh(expert_states[:, :action_dim])
    algo = GAIL(state_dim, action_dim, expert_states, expert_actions)
    env = ToyReacher(state_dim, action_dim, num_envs=16)
    for horizon in batches:
        algo.update(env, horizon)
    return float(algo.total_gail_reward) / max(algo.num_updates, 1)
