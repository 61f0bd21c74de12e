# Source: https://github.com/udacity/deep-reinforcement-learning/blob/master/dqn/exercise/dqn_agent.py
# Shape: act() runs the Q-network with autograd on (no torch.no_grad, as in many solutions of the exercise) and folds action_values.max() into the running average self.avg_max_q, so the moving statistic carries every action-selection forward graph, with its saved activations, from one environment step to the next.
# Verdict: leak
import random
from collections import namedtuple, deque

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

BUFFER_SIZE = int(1e5)  # replay buffer size
BATCH_SIZE = 8          # minibatch size
GAMMA = 0.99            # discount factor
TAU = 1e-3              # for soft update of target parameters
LR = 5e-4               # learning rate
UPDATE_EVERY = 2        # how often to update the network
Q_AVG_DECAY = 0.99      # smoothing of the average max-Q curve (Mnih et al., Fig. 2)

device = torch.device("cpu")


# ------------------------------------------------------------------ model.py
class QNetwork(nn.Module):
    """Actor (Policy) Model."""

    def __init__(self, state_size, action_size, seed, fc1_units=64, fc2_units=64):
        super(QNetwork, self).__init__()
        self.seed = torch.manual_seed(seed)
        self.fc1 = nn.Linear(state_size, fc1_units)
        self.fc2 = nn.Linear(fc1_units, fc2_units)
        self.fc3 = nn.Linear(fc2_units, action_size)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


# ------------------------------------------------------------------ dqn_agent.py
class Agent():
    """Interacts with and learns from the environment."""

    def __init__(self, state_size, action_size, seed):
        self.state_size = state_size
        self.action_size = action_size
        self.rng = random.Random(seed)

        # Q-Network
        self.qnetwork_local = QNetwork(state_size, action_size, seed).to(device)
        self.qnetwork_target = QNetwork(state_size, action_size, seed).to(device)
        self.optimizer = optim.Adam(self.qnetwork_local.parameters(), lr=LR)

        # Replay memory
        self.memory = ReplayBuffer(action_size, BUFFER_SIZE, BATCH_SIZE, seed)
        # Initialize time step (for updating every UPDATE_EVERY steps)
        self.t_step = 0
        # Monitoring
        self.avg_max_q = 0.0
        self.losses = []

    def step(self, state, action, reward, next_state, done):
        # Save experience in replay memory
        self.memory.add(state, action, reward, next_state, done)

        # Learn every UPDATE_EVERY time steps.
        self.t_step = (self.t_step + 1) % UPDATE_EVERY
        if self.t_step == 0:
            if len(self.memory) > BATCH_SIZE:
                experiences = self.memory.sample()
                self.learn(experiences, GAMMA)

    def act(self, state, eps=0.):
        """Returns actions for given state as per current policy."""
        state = state.float().unsqueeze(0).to(device)
        self.qnetwork_local.eval()
        action_values = self.qnetwork_local(state)
        self.qnetwork_local.train()
        self.avg_max_q = Q_AVG_DECAY * self.avg_max_q + (1 - Q_AVG_DECAY) * action_values.max()  # TLK103

        # Epsilon-greedy action selection
        if self.rng.random() > eps:
            return int(action_values.argmax(dim=1).item())
        else:
            return self.rng.randrange(self.action_size)

    def learn(self, experiences, gamma):
        """Update value parameters using given batch of experience tuples."""
        states, actions, rewards, next_states, dones = experiences

        # Get max predicted Q values (for next states) from target model
        Q_targets_next = self.qnetwork_target(next_states).detach().max(1)[0].unsqueeze(1)
        # Compute Q targets for current states
        Q_targets = rewards + (gamma * Q_targets_next * (1 - dones))

        # Get expected Q values from local model
        Q_expected = self.qnetwork_local(states).gather(1, actions)

        loss = F.mse_loss(Q_expected, Q_targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss.item())

        # ------------------- update target network ------------------- #
        self.soft_update(self.qnetwork_local, self.qnetwork_target, TAU)

    def soft_update(self, local_model, target_model, tau):
        """Soft update model parameters: θ_target = τ*θ_local + (1 - τ)*θ_target"""
        for target_param, local_param in zip(target_model.parameters(), local_model.parameters()):
            target_param.data.copy_(tau * local_param.data + (1.0 - tau) * target_param.data)


class ReplayBuffer:
    """Fixed-size buffer to store experience tuples."""

    def __init__(self, action_size, buffer_size, batch_size, seed):
        self.action_size = action_size
        self.memory = deque(maxlen=buffer_size)
        self.batch_size = batch_size
        self.experience = namedtuple("Experience", field_names=["state", "action", "reward", "next_state", "done"])
        self.rng = random.Random(seed)

    def add(self, state, action, reward, next_state, done):
        """Add a new experience to memory."""
        self.memory.append(self.experience(state, action, reward, next_state, done))

    def sample(self):
        """Randomly sample a batch of experiences from memory."""
        experiences = self.rng.sample(list(self.memory), k=self.batch_size)
        states = torch.stack([e.state for e in experiences]).float().to(device)
        actions = torch.tensor([[e.action] for e in experiences], dtype=torch.long, device=device)
        rewards = torch.tensor([[e.reward] for e in experiences], dtype=torch.float, device=device)
        next_states = torch.stack([e.next_state for e in experiences]).float().to(device)
        dones = torch.tensor([[float(e.done)] for e in experiences], device=device)
        return (states, actions, rewards, next_states, dones)

    def __len__(self):
        return len(self.memory)


# ------------------------------------------------------------------ environment + Deep_Q_Network.ipynb loop
class ChainEnv(object):
    """Small deterministic chain MDP whose observations are fixed random feature vectors."""

    def __init__(self, features, action_size=3, goal=None):
        self.features = features
        self.n = features.size(0)
        self.action_size = action_size
        self.goal = self.n - 1 if goal is None else goal
        self.pos = 0

    def reset(self):
        self.pos = 0
        return self.features[self.pos]

    def step(self, action):
        move = {0: -1, 1: 0, 2: 1}[action]
        self.pos = max(0, min(self.n - 1, self.pos + move))
        done = self.pos == self.goal
        reward = 1.0 if done else -0.01
        return self.features[self.pos], reward, done, {}


def make_batches(n_states=12, state_size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n_states, state_size, generator=g)


def run(steps, eps_start=1.0, eps_end=0.05, eps_decay=0.95, max_t=20):
    torch.manual_seed(0)
    features = make_batches()
    env = ChainEnv(features)
    agent = Agent(state_size=features.size(1), action_size=env.action_size, seed=0)
    scores, scores_window = [], deque(maxlen=100)
    eps = eps_start
    state, score, t = env.reset(), 0.0, 0
    for _ in range(steps):
        action = agent.act(state, eps)
        next_state, reward, done, _ = env.step(action)
        agent.step(state, action, reward, next_state, done)
        state = next_state
        score += reward
        t += 1
        if done or t >= max_t:
            scores_window.append(score)
            scores.append(score)
            eps = max(eps_end, eps_decay * eps)
            state, score, t = env.reset(), 0.0, 0
    return {'agent': agent, 'scores': scores, 'avg_max_q': agent.avg_max_q}


if __name__ == "__main__":
    run(10)
