# Source: https://github.com/nikhilbarhate99/PPO-PyTorch/issues/63
# Shape: a PPO agent's select_action method (called once per environment step) runs the old policy with grad enabled and appends the attached log-probability and state value to its rollout buffer; update() only reads them detached, so every step's actor and critic graphs stay alive until the buffer is cleared after thousands of steps.
# Verdict: leak
import torch
import torch.nn as nn
from torch.distributions import Categorical


class RolloutBuffer:
    def __init__(self):
        self.actions, self.states, self.logprobs = [], [], []
        self.rewards, self.state_values, self.is_terminals = [], [], []

    def clear(self):
        for items in (self.actions, self.states, self.logprobs, self.rewards, self.state_values, self.is_terminals):
            del items[:]


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(state_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                                   nn.Linear(64, action_dim), nn.Softmax(dim=-1))
        self.critic = nn.Sequential(nn.Linear(state_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def act(self, state):
        dist = Categorical(self.actor(state))
        action = dist.sample()
        return action, dist.log_prob(action), self.critic(state)

    def evaluate(self, state, action):
        dist = Categorical(self.actor(state))
        return dist.log_prob(action), self.critic(state), dist.entropy()


class PPO:
    def __init__(self, state_dim, action_dim, lr_actor=3e-4, lr_critic=1e-3, gamma=0.99, K_epochs=80, eps_clip=0.2):
        self.gamma, self.K_epochs, self.eps_clip = gamma, K_epochs, eps_clip
        self.buffer = RolloutBuffer()
        self.policy = ActorCritic(state_dim, action_dim)
        self.optimizer = torch.optim.Adam([
            {"params": self.policy.actor.parameters(), "lr": lr_actor},
            {"params": self.policy.critic.parameters(), "lr": lr_critic},
        ])
        self.policy_old = ActorCritic(state_dim, action_dim)
        self.policy_old.load_state_dict(self.policy.state_dict())

    def select_action(self, state):
        state = torch.FloatTensor(state)
        action, action_logprob, state_val = self.policy_old.act(state)
        self.buffer.states.append(state)
        self.buffer.actions.append(action)
        self.buffer.logprobs.append(action_logprob)  # TLK102
        self.buffer.state_values.append(state_val)  # TLK102
        return action.item()

    def update(self):
        rewards, discounted = [], 0.0
        for reward, is_terminal in zip(reversed(self.buffer.rewards), reversed(self.buffer.is_terminals)):
            discounted = 0.0 if is_terminal else discounted
            discounted = reward + self.gamma * discounted
            rewards.insert(0, discounted)
        rewards = torch.tensor(rewards, dtype=torch.float32)
        rewards = (rewards - rewards.mean()) / (rewards.std() + 1e-7)
        old_states = torch.stack(self.buffer.states).detach()
        old_actions = torch.stack(self.buffer.actions).detach()
        old_logprobs = torch.stack(self.buffer.logprobs).detach()
        old_state_values = torch.stack(self.buffer.state_values).squeeze(-1).detach()
        advantages = rewards - old_state_values
        for _ in range(self.K_epochs):
            logprobs, state_values, dist_entropy = self.policy.evaluate(old_states, old_actions)
            ratios = torch.exp(logprobs - old_logprobs)
            surr1 = ratios * advantages
            surr2 = torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages
            loss = -torch.min(surr1, surr2) + 0.5 * (state_values.squeeze(-1) - rewards) ** 2 - 0.01 * dist_entropy
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
        self.policy_old.load_state_dict(self.policy.state_dict())
        self.buffer.clear()


def train(env, agent: PPO, max_training_timesteps=3_000_000, max_ep_len=1000, update_timestep=4000):
    time_step = 0
    while time_step <= max_training_timesteps:
        state, _ = env.reset()
        for t in range(1, max_ep_len + 1):
            action = agent.select_action(state)
            state, reward, terminated, truncated, _ = env.step(action)
            agent.buffer.rewards.append(reward)
            agent.buffer.is_terminals.append(terminated)
            time_step += 1
            if time_step % update_timestep == 0:
                agent.update()
            if terminated or truncated:
                break
