# Source: https://github.com/nikhilbarhate99/PPO-PyTorch/issues/16
# Shape: a continuous-action PPO agent samples each step's action from the old policy outside torch.no_grad() and its act() stores the action log-probability, still attached, in the rollout Memory; the memory is only cleared after each update (every few hundred steps), so every stored step keeps the actor's forward graph, saved activations included, until then; the update recomputes log-probs and detaches the stored ones.
# Verdict: leak
import torch
import torch.nn as nn
from torch.distributions import MultivariateNormal


class Memory:
    def __init__(self):
        self.actions, self.states, self.logprobs, self.rewards, self.is_terminals = [], [], [], [], []

    def clear_memory(self):
        del self.actions[:], self.states[:], self.logprobs[:], self.rewards[:], self.is_terminals[:]


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, action_std=0.5, width=64):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(state_dim, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, action_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(state_dim, width), nn.Tanh(), nn.Linear(width, 1))
        self.action_var = torch.full((action_dim,), action_std * action_std)

    def act(self, state, memory):
        action_mean = self.actor(state)
        dist = MultivariateNormal(action_mean, torch.diag(self.action_var).unsqueeze(0))
        action = dist.sample()
        action_logprob = dist.log_prob(action)
        memory.states.append(state)
        memory.actions.append(action)
        memory.logprobs.append(action_logprob)  # TLK102
        return action.detach()

    def evaluate(self, state, action):
        action_mean = self.actor(state)
        dist = MultivariateNormal(action_mean, torch.diag_embed(self.action_var.expand_as(action_mean)))
        return dist.log_prob(action), torch.squeeze(self.critic(state)), dist.entropy()


class PPO:
    def __init__(self, state_dim, action_dim, lr=3e-4, gamma=0.99, k_epochs=4, eps_clip=0.2):
        self.policy = ActorCritic(state_dim, action_dim)
        self.policy_old = ActorCritic(state_dim, action_dim)
        self.policy_old.load_state_dict(self.policy.state_dict())
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.gamma, self.k_epochs, self.eps_clip = gamma, k_epochs, eps_clip

    def select_action(self, state, memory):
        state = torch.as_tensor(state, dtype=torch.float32).reshape(1, -1)
        return self.policy_old.act(state, memory).flatten()

    def update(self, memory):
        returns, discounted = [], 0.0
        for reward, done in zip(reversed(memory.rewards), reversed(memory.is_terminals)):
            discounted = 0.0 if done else discounted
            discounted = reward + self.gamma * discounted
            returns.insert(0, discounted)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-5)
        old_states = torch.cat(memory.states).detach()
        old_actions = torch.cat(memory.actions).detach()
        old_logprobs = torch.cat(memory.logprobs).detach()
        for _ in range(self.k_epochs):
            logprobs, values, entropy = self.policy.evaluate(old_states, old_actions)
            ratios = torch.exp(logprobs - old_logprobs)
            advantages = returns - values.detach()
            surr = torch.min(ratios * advantages, torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages)
            loss = -surr + 0.5 * (values - returns) ** 2 - 0.01 * entropy
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
        self.policy_old.load_state_dict(self.policy.state_dict())


def run(env_step, state_dim, action_dim, max_timesteps=2000, update_timestep=400):
    memory, ppo = Memory(), PPO(state_dim, action_dim)
    state = torch.zeros(state_dim)
    for t in range(1, max_timesteps + 1):
        action = ppo.select_action(state, memory)
        state, reward, done = env_step(action)
        memory.rewards.append(reward)
        memory.is_terminals.append(done)
        if t % update_timestep == 0:
            ppo.update(memory)
            memory.clear_memory()
    return ppo, memory
