# Source: https://github.com/UoA-CARES/cares_reinforcement_learning/blob/0a48ba36a536554811abf5d6dc2959a0f024ec0f/cares_reinforcement_learning/util/Record.py
# Shape: fixed twin: Record.log_train() converts tensor values with .item() before appending the row, so the log holds plain floats.
# Verdict: clean
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

OBS_DIM = 12
ACT_DIM = 4
BATCH_SIZE = 64


class Actor(nn.Module):
    def __init__(self, observation_size, num_actions, hidden=64):
        super().__init__()
        self.h_linear_1 = nn.Linear(observation_size, hidden)
        self.h_linear_2 = nn.Linear(hidden, hidden)
        self.h_linear_3 = nn.Linear(hidden, num_actions)

    def forward(self, state):
        x = F.relu(self.h_linear_1(state))
        x = F.relu(self.h_linear_2(x))
        return torch.tanh(self.h_linear_3(x))


class Critic(nn.Module):
    def __init__(self, observation_size, num_actions, hidden=64):
        super().__init__()
        self.Q1 = nn.Sequential(nn.Linear(observation_size + num_actions, hidden), nn.ReLU(),
                                nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.Q2 = nn.Sequential(nn.Linear(observation_size + num_actions, hidden), nn.ReLU(),
                                nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, state, action):
        obs_action = torch.cat([state, action], dim=1)
        return self.Q1(obs_action), self.Q2(obs_action)


class MemoryBuffer:
    def __init__(self, max_capacity, obs_dim, act_dim):
        self.max_capacity = max_capacity
        self.ptr, self.size = 0, 0
        self.states = torch.zeros(max_capacity, obs_dim)
        self.actions = torch.zeros(max_capacity, act_dim)
        self.rewards = torch.zeros(max_capacity, 1)
        self.next_states = torch.zeros(max_capacity, obs_dim)
        self.dones = torch.zeros(max_capacity, 1)
        self.gen = torch.Generator().manual_seed(3)

    def add(self, state, action, reward, next_state, done):
        n = state.shape[0]
        idx = (torch.arange(n) + self.ptr) % self.max_capacity
        self.states[idx], self.actions[idx] = state, action
        self.rewards[idx], self.next_states[idx], self.dones[idx] = reward, next_state, done
        self.ptr = (self.ptr + n) % self.max_capacity
        self.size = min(self.size + n, self.max_capacity)

    def sample(self, batch_size):
        ind = torch.randint(0, self.size, (batch_size,), generator=self.gen)
        return self.states[ind], self.actions[ind], self.rewards[ind], self.next_states[ind], self.dones[ind]


class TD3:
    def __init__(self, actor_network, critic_network, gamma=0.99, tau=0.005,
                 actor_lr=1e-4, critic_lr=1e-3, policy_update_freq=2):
        self.actor_net = actor_network
        self.critic_net = critic_network
        self.target_actor_net = copy.deepcopy(actor_network)
        self.target_critic_net = copy.deepcopy(critic_network)
        self.gamma, self.tau = gamma, tau
        self.learn_counter = 0
        self.policy_update_freq = policy_update_freq
        self.actor_net_optimiser = torch.optim.Adam(self.actor_net.parameters(), lr=actor_lr)
        self.critic_net_optimiser = torch.optim.Adam(self.critic_net.parameters(), lr=critic_lr)

    def select_action_from_policy(self, state, noise_scale=0.1, gen=None):
        with torch.no_grad():
            action = self.actor_net(state)
            action = action + noise_scale * torch.randn(action.shape, generator=gen)
        return action.clamp(-1, 1)

    def train_policy(self, memory, batch_size):
        self.learn_counter += 1
        states, actions, rewards, next_states, dones = memory.sample(batch_size)
        info = {}

        with torch.no_grad():
            next_actions = self.target_actor_net(next_states)
            target_noise = (0.2 * torch.randn_like(next_actions)).clamp(-0.5, 0.5)
            next_actions = (next_actions + target_noise).clamp(-1, 1)
            target_q_one, target_q_two = self.target_critic_net(next_states, next_actions)
            target_q_values = torch.minimum(target_q_one, target_q_two)
            q_target = rewards + self.gamma * (1 - dones) * target_q_values

        q_values_one, q_values_two = self.critic_net(states, actions)
        critic_loss_one = F.mse_loss(q_values_one, q_target)
        critic_loss_two = F.mse_loss(q_values_two, q_target)
        critic_loss_total = critic_loss_one + critic_loss_two

        self.critic_net_optimiser.zero_grad()
        critic_loss_total.backward()
        self.critic_net_optimiser.step()

        info["critic_loss_one"] = critic_loss_one
        info["critic_loss_two"] = critic_loss_two
        info["critic_loss"] = critic_loss_total
        info["q_values_one"] = q_values_one.mean()

        if self.learn_counter % self.policy_update_freq == 0:
            actor_q_one, _ = self.critic_net(states, self.actor_net(states))
            actor_loss = -actor_q_one.mean()
            self.actor_net_optimiser.zero_grad()
            actor_loss.backward()
            self.actor_net_optimiser.step()
            info["actor_loss"] = actor_loss
            for param, target_param in zip(self.critic_net.parameters(), self.target_critic_net.parameters()):
                target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)
            for param, target_param in zip(self.actor_net.parameters(), self.target_actor_net.parameters()):
                target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)
        return info


class Record:
    """Training/eval logger (upstream keeps a pandas DataFrame; a list of rows here)."""

    def __init__(self, config, plot_frequency=10000, checkpoint_frequency=10000):
        self.config = config
        self.plot_frequency = plot_frequency
        self.checkpoint_frequency = checkpoint_frequency
        self.train_data = []
        self.eval_data = []
        self.log_count = 0

    def log_train(self, display=False, **logs):
        self.log_count += 1
        self.train_data.append({k: (v.item() if torch.is_tensor(v) else v) for k, v in logs.items()})
        if display:
            print(" | ".join(f"{k}: {str(v)[0:10]:6s}" for k, v in logs.items()))

    def log_eval(self, display=False, **logs):
        self.eval_data.append({k: float(v) for k, v in logs.items()})


class ToyEnv:
    def __init__(self, n_envs=16, seed=0):
        self.gen = torch.Generator().manual_seed(seed)
        self.n_envs = n_envs
        self.state = torch.randn(n_envs, OBS_DIM, generator=self.gen)

    def step(self, action, seed):
        self.gen.manual_seed(seed)
        next_state = 0.95 * self.state + 0.05 * torch.randn(self.n_envs, OBS_DIM, generator=self.gen)
        next_state[:, :ACT_DIM] += 0.1 * action
        reward = -(next_state ** 2).mean(dim=1, keepdim=True)
        done = (torch.rand(self.n_envs, 1, generator=self.gen) < 0.02).float()
        state, self.state = self.state, next_state
        return state, next_state, reward, done


def make_batches(n):
    torch.manual_seed(0)
    return [500 + i for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    env = ToyEnv()
    agent = TD3(Actor(OBS_DIM, ACT_DIM), Critic(OBS_DIM, ACT_DIM))
    memory = MemoryBuffer(1024, OBS_DIM, ACT_DIM)
    record = Record(config={"algorithm": "TD3", "task": "toy"})
    noise_gen = torch.Generator().manual_seed(9)
    episode_reward = 0.0
    for total_step_counter, seed in enumerate(batches):
        action = agent.select_action_from_policy(env.state, gen=noise_gen)
        state, next_state, reward, done = env.step(action, seed)
        memory.add(state, action, reward, next_state, done)
        episode_reward += float(reward.mean())
        info = agent.train_policy(memory, BATCH_SIZE)
        record.log_train(total_steps=total_step_counter + 1, episode_reward=episode_reward, **info)
    return agent, record
