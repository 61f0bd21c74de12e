# Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/278
# Shape: the recurrent memory is detached at the start of each rollout segment (truncated BPTT), so each update only owns its own segment graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Config:
    num_envs = 16
    obs_dim = 12
    num_actions = 4
    hidden_size = 64
    num_steps = 5          # n-step rollout length
    gamma = 0.99
    value_loss_coef = 0.5
    entropy_coef = 0.01
    lr = 7e-4
    max_grad_norm = 0.5


class ToyVecEnv:
    """Deterministic vectorised environment: a drifting point that the agent pushes around."""

    def __init__(self, num_envs, obs_dim, num_actions):
        g = torch.Generator().manual_seed(1)
        self.push = torch.randn(num_actions, obs_dim, generator=g) * 0.3
        self.state = torch.randn(num_envs, obs_dim, generator=g)

    def observe(self):
        return self.state.clone()

    def step(self, action, noise):
        self.state = 0.9 * self.state + self.push[action]
        reward = -self.state.pow(2).mean(dim=1) + noise
        done = torch.zeros(self.state.size(0))
        return self.observe(), reward, done


class MemoryActorCritic(nn.Module):
    """Actor-critic with a leaky-integrator memory (a cheap recurrent state)."""

    def __init__(self, obs_dim, num_actions, hidden_size):
        super().__init__()
        self.encoder = nn.Linear(obs_dim, hidden_size)
        self.decay_logit = nn.Parameter(torch.zeros(hidden_size))
        self.actor = nn.Linear(2 * hidden_size, num_actions)
        self.critic = nn.Linear(2 * hidden_size, 1)

    def init_memory(self, num_envs):
        return torch.zeros(num_envs, self.encoder.out_features)

    def forward(self, obs, memory, masks):
        feat = F.relu(self.encoder(obs))
        decay = torch.sigmoid(self.decay_logit)
        memory = memory * masks
        memory = decay * memory + (1.0 - decay) * feat
        x = torch.cat([feat, memory], dim=-1)
        return self.actor(x), self.critic(x), memory


class A2C:
    def __init__(self, cfg):
        self.cfg = cfg
        self.net = MemoryActorCritic(cfg.obs_dim, cfg.num_actions, cfg.hidden_size)
        self.optimizer = torch.optim.RMSprop(self.net.parameters(), lr=cfg.lr, eps=1e-5, alpha=0.99)
        self.memory = self.net.init_memory(cfg.num_envs)

    def collect(self, env, reward_noise):
        log_probs, values, entropies, rewards, masks = [], [], [], [], []
        memory = self.memory.detach()
        obs = env.observe()
        mask = torch.ones(self.cfg.num_envs, 1)
        for step in range(self.cfg.num_steps):
            logits, value, memory = self.net(obs, memory, mask)
            dist = Categorical(logits=logits)
            action = dist.sample()
            obs, reward, done = env.step(action, reward_noise[step])
            mask = (1.0 - done).unsqueeze(-1)
            log_probs.append(dist.log_prob(action))
            values.append(value.squeeze(-1))
            entropies.append(dist.entropy())
            rewards.append(reward)
            masks.append(mask.squeeze(-1))
        self.memory = memory
        self.last_obs, self.last_mask = obs, mask
        return (torch.stack(log_probs), torch.stack(values), torch.stack(entropies),
                torch.stack(rewards), torch.stack(masks))

    def compute_returns(self, rewards, masks, next_value):
        returns = torch.zeros_like(rewards)
        running = next_value
        for step in reversed(range(rewards.size(0))):
            running = rewards[step] + self.cfg.gamma * running * masks[step]
            returns[step] = running
        return returns

    def update(self, env, reward_noise):
        log_probs, values, entropies, rewards, masks = self.collect(env, reward_noise)
        with torch.no_grad():
            _, next_value, _ = self.net(self.last_obs, self.memory, self.last_mask)
        returns = self.compute_returns(rewards, masks, next_value.squeeze(-1))
        advantages = returns - values
        value_loss = advantages.pow(2).mean()
        action_loss = -(advantages.detach() * log_probs).mean()
        loss = value_loss * self.cfg.value_loss_coef + action_loss - entropies.mean() * self.cfg.entropy_coef
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.max_grad_norm)
        self.optimizer.step()
        return value_loss.item(), action_loss.item()


def make_batches(n):
    torch.manual_seed(0)
    cfg = Config
    # one entry per rollout segment: the reward noise the environment adds at each step
    return [tuple((torch.randn(cfg.num_steps) * 0.1).tolist()) for _ in range(n)]


def run(batches):
    agent = A2C(Config)
    env = ToyVecEnv(Config.num_envs, Config.obs_dim, Config.num_actions)
    value_loss, action_loss = 0.0, 0.0
    for reward_noise in batches:
        value_loss, action_loss = agent.update(env, reward_noise)
    return value_loss, action_loss
