# Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/82
# Shape: PPO fills a RolloutStorage with values, log-probs and GRU states computed under torch.no_grad(), re-evaluates the actions with grad inside the update, and copies the last step forward in after_update, so the storage never holds a graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_dim, hidden_size):
        self.obs = torch.zeros(num_steps + 1, num_processes, obs_dim)
        self.recurrent_hidden_states = torch.zeros(num_steps + 1, num_processes, hidden_size)
        self.rewards = torch.zeros(num_steps, num_processes, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_processes, 1)
        self.returns = torch.zeros(num_steps + 1, num_processes, 1)
        self.action_log_probs = torch.zeros(num_steps, num_processes, 1)
        self.actions = torch.zeros(num_steps, num_processes, 1, dtype=torch.long)
        self.masks = torch.ones(num_steps + 1, num_processes, 1)
        self.num_steps = num_steps
        self.step = 0

    def insert(self, obs, hxs, actions, action_log_probs, value_preds, rewards, masks):
        self.obs[self.step + 1].copy_(obs)
        self.recurrent_hidden_states[self.step + 1].copy_(hxs)
        self.actions[self.step].copy_(actions)
        self.action_log_probs[self.step].copy_(action_log_probs)
        self.value_preds[self.step].copy_(value_preds)
        self.rewards[self.step].copy_(rewards)
        self.masks[self.step + 1].copy_(masks)
        self.step = (self.step + 1) % self.num_steps

    def after_update(self):
        self.obs[0].copy_(self.obs[-1])
        self.recurrent_hidden_states[0].copy_(self.recurrent_hidden_states[-1])
        self.masks[0].copy_(self.masks[-1])

    def compute_returns(self, next_value, gamma, gae_lambda):
        self.value_preds[-1] = next_value
        gae = 0
        for step in reversed(range(self.rewards.size(0))):
            delta = (self.rewards[step] + gamma * self.value_preds[step + 1] * self.masks[step + 1]
                     - self.value_preds[step])
            gae = delta + gamma * gae_lambda * self.masks[step + 1] * gae
            self.returns[step] = gae + self.value_preds[step]


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden_size=64):
        super().__init__()
        self.base = nn.Linear(obs_dim, hidden_size)
        self.gru = nn.GRUCell(hidden_size, hidden_size)
        self.actor = nn.Linear(hidden_size, num_actions)
        self.critic = nn.Linear(hidden_size, 1)

    def _forward(self, obs, hxs, masks):
        hxs = self.gru(F.relu(self.base(obs)), hxs * masks)
        return self.critic(hxs), self.actor(hxs), hxs

    def act(self, obs, hxs, masks):
        value, logits, hxs = self._forward(obs, hxs, masks)
        dist = Categorical(logits=logits)
        action = dist.sample()
        return value, action.unsqueeze(-1), dist.log_prob(action).unsqueeze(-1), hxs

    def evaluate_actions(self, obs, hxs, masks, actions):
        values, log_probs, entropies = [], [], []
        for t in range(obs.size(0)):       # recompute the recurrent states inside the graph
            value, logits, hxs = self._forward(obs[t], hxs, masks[t])
            dist = Categorical(logits=logits)
            values.append(value)
            log_probs.append(dist.log_prob(actions[t].squeeze(-1)).unsqueeze(-1))
            entropies.append(dist.entropy().mean())
        return torch.stack(values), torch.stack(log_probs), torch.stack(entropies).mean()


class PPO:
    def __init__(self, policy, clip_param=0.2, ppo_epoch=2, value_loss_coef=0.5, entropy_coef=0.01, lr=7e-4):
        self.policy = policy
        self.clip_param, self.ppo_epoch = clip_param, ppo_epoch
        self.value_loss_coef, self.entropy_coef = value_loss_coef, entropy_coef
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr, eps=1e-5)

    def update(self, rollouts):
        advantages = rollouts.returns[:-1] - rollouts.value_preds[:-1]
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)
        value_loss_epoch = action_loss_epoch = 0.0
        for _ in range(self.ppo_epoch):
            values, log_probs, entropy = self.policy.evaluate_actions(
                rollouts.obs[:-1], rollouts.recurrent_hidden_states[0], rollouts.masks[:-1], rollouts.actions)
            ratio = torch.exp(log_probs - rollouts.action_log_probs)
            surr1 = ratio * advantages
            surr2 = torch.clamp(ratio, 1.0 - self.clip_param, 1.0 + self.clip_param) * advantages
            action_loss = -torch.min(surr1, surr2).mean()
            value_loss = 0.5 * (rollouts.returns[:-1] - values).pow(2).mean()
            self.optimizer.zero_grad()
            (value_loss * self.value_loss_coef + action_loss - entropy * self.entropy_coef).backward()
            nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            self.optimizer.step()
            value_loss_epoch += value_loss.item()
            action_loss_epoch += action_loss.item()
        return value_loss_epoch / self.ppo_epoch, action_loss_epoch / self.ppo_epoch


class ToyVecEnv:
    def __init__(self, num_processes, obs_dim, num_actions):
        g = torch.Generator().manual_seed(11)
        self.push = torch.randn(num_actions, obs_dim, generator=g) * 0.3
        self.state = torch.randn(num_processes, obs_dim, generator=g)

    def step(self, action, noise):
        self.state = 0.9 * self.state + self.push[action.squeeze(-1)]
        reward = (-self.state.pow(2).mean(dim=1, keepdim=True)) + noise
        return self.state.clone(), reward, torch.ones(self.state.size(0), 1)


def make_batches(n):
    torch.manual_seed(0)
    # per PPO update: the reward noise of each rollout step
    return [tuple((torch.randn(5) * 0.05).tolist()) for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    num_steps, num_processes, obs_dim, num_actions, hidden = 5, 16, 12, 4, 64
    env = ToyVecEnv(num_processes, obs_dim, num_actions)
    policy = RecurrentPolicy(obs_dim, num_actions, hidden)
    agent = PPO(policy)
    rollouts = RolloutStorage(num_steps, num_processes, obs_dim, hidden)
    rollouts.obs[0].copy_(env.state)
    losses = None
    for noise in batches:
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob, hxs = policy.act(
                    rollouts.obs[step], rollouts.recurrent_hidden_states[step], rollouts.masks[step])
            obs, reward, masks = env.step(action, noise[step])
            rollouts.insert(obs, hxs, action, action_log_prob, value, reward, masks)
        with torch.no_grad():
            next_value, _, _ = policy._forward(rollouts.obs[-1], rollouts.recurrent_hidden_states[-1],
                                               rollouts.masks[-1])
        rollouts.compute_returns(next_value, gamma=0.99, gae_lambda=0.95)
        losses = agent.update(rollouts)
        rollouts.after_update()
    return losses
