# Source: https://github.com/higgsfield/RL-Adventure/blob/1b0cedd4b7cc9e278c0bbb85f6582047e4e2f628/1.dqn.ipynb
# Shape: fixed twin: the loop appends loss.item(), so the plotted losses are floats and no Q-network graph is held.
# Verdict: clean
import math
import random
from collections import deque

import torch
import torch.nn as nn
import torch.optim as optim
import torch.nn.functional as F

device = torch.device("cpu")
OBS_DIM, N_ACTIONS = 4, 2


class ReplayBuffer(object):
    def __init__(self, capacity):
        self.buffer = deque(maxlen=capacity)

    def push(self, state, action, reward, next_state, done):
        self.buffer.append((state, action, reward, next_state, done))

    def sample(self, batch_size):
        # unzip the entries in the buffer into the 5 separate variables
        state, action, reward, next_state, done = zip(*random.sample(self.buffer, batch_size))
        return torch.stack(state), action, reward, torch.stack(next_state), done

    def __len__(self):
        return len(self.buffer)


class ToyCartPole:
    """Tiny deterministic stand-in for gym's CartPole-v0 (4-dim state, 2 actions)."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)
        self.t = 0

    def reset(self):
        self.t = 0
        self.state = 0.05 * torch.randn(OBS_DIM, generator=self.g)
        return self.state

    def step(self, action):
        self.t += 1
        push = 1.0 if action == 1 else -1.0
        self.state = self.state + 0.02 * torch.tensor([self.state[1], push, self.state[3], -push]) \
            + 0.01 * torch.randn(OBS_DIM, generator=self.g)
        done = self.t >= 50 or bool(self.state.abs().max() > 2.4)
        return self.state, 1.0, done, {}


epsilon_start = 1.0
epsilon_final = 0.01
epsilon_decay = 500
epsilon_by_frame = lambda frame_idx: epsilon_final + (epsilon_start - epsilon_final) * math.exp(-1. * frame_idx / epsilon_decay)


class DQN(nn.Module):
    def __init__(self, num_inputs, num_actions, num_hiddenNodes1):
        super(DQN, self).__init__()
        self.num_actions = num_actions
        self.layers = nn.Sequential(
            nn.Linear(num_inputs, num_hiddenNodes1),
            nn.ReLU(),
            nn.Linear(num_hiddenNodes1, 64),
            nn.ReLU(),
            nn.Linear(64, num_actions)
        )

    def forward(self, x):
        return self.layers(x)

    def act(self, state, epsilon):
        if random.random() > epsilon:
            state = torch.as_tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
            q_value = self.forward(state).detach()
            action = q_value.max(1)[1].item()
        else:
            action = random.randrange(self.num_actions)
        return action


def update_target(current_model, target_model):
    target_model.load_state_dict(current_model.state_dict())


def compute_td_loss(model, target_model, optimizer, replay_buffer, batch_size, gamma):
    state, action, reward, next_state, done = replay_buffer.sample(batch_size)

    states = state.to(device)
    next_states = next_state.to(device)
    actions = torch.tensor(action, dtype=torch.long, device=device)
    rewards = torch.tensor(reward, dtype=torch.float32, device=device)
    dones = torch.tensor(done, dtype=torch.float32, device=device)

    q_values = model(states)
    next_q_values = target_model(next_states).detach()

    q_value = q_values.gather(1, actions.unsqueeze(1)).squeeze(1)
    next_q_value = next_q_values.max(1)[0]
    expected_q_value = rewards + gamma * next_q_value * (1 - dones)

    loss = F.smooth_l1_loss(q_value, expected_q_value)  # Huber loss

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    return loss


def make_batches(n):
    # one environment-step seed per frame; training starts once the buffer holds batch_size transitions
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    random.seed(0)
    model = DQN(OBS_DIM, N_ACTIONS, 64).to(device)
    target_model = DQN(OBS_DIM, N_ACTIONS, 64).to(device)
    optimizer = optim.Adam(model.parameters())
    replay_buffer = ReplayBuffer(1000)
    update_target(model, target_model)

    batch_size = 32
    gamma = 0.99
    env = ToyCartPole(seed=0)

    # warm-up: fill the replay buffer with random transitions
    state = env.reset()
    while len(replay_buffer) < 1000:
        action = random.randrange(N_ACTIONS)
        next_state, reward, done, _ = env.step(action)
        replay_buffer.push(state, action, reward, next_state, done)
        state = env.reset() if done else next_state

    losses = []
    all_rewards = []
    episode_reward = 0
    state = env.reset()
    for frame_idx, seed in enumerate(batches, 1):
        random.seed(seed)
        epsilon = epsilon_by_frame(frame_idx)
        action = model.act(state, epsilon)
        next_state, reward, done, _ = env.step(action)
        replay_buffer.push(state, action, reward, next_state, done)
        state = next_state
        episode_reward += reward
        if done:
            state = env.reset()
            all_rewards.append(episode_reward)
            episode_reward = 0

        loss = compute_td_loss(model, target_model, optimizer, replay_buffer, batch_size, gamma)
        losses.append(loss.item())

        if frame_idx % 100 == 0:
            update_target(model, target_model)
    return all_rewards, losses
