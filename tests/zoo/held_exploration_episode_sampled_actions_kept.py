# Source: https://github.com/BY571/Upside-Down-Reinforcement-Learning/issues/3
# Shape: upside-down RL: the exploration episodes query the behaviour function with grad enabled, sample each action from a Categorical distribution and keep the sampled action tensors, observations and rewards in the episode record; a sample carries no graph, so the records hold none (no_grad would only save compute), and training recomputes the logits from the replayed commands.
# Verdict: clean
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BehaviorFunction(nn.Module):
    def __init__(self, state_dim, n_actions, command_scale=(0.02, 0.01)):
        super().__init__()
        self.command_scale = torch.tensor(command_scale)
        self.state_fc = nn.Linear(state_dim, 64)
        self.command_fc = nn.Linear(2, 64)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, state, command):
        return self.head(torch.sigmoid(self.state_fc(state)) * torch.sigmoid(self.command_fc(command * self.command_scale)))


def generate_episode(env, bf, desired_return, desired_horizon, max_steps=500):
    states, actions, rewards = [], [], []
    state = env.reset()
    for _ in range(max_steps):
        command = torch.tensor([[desired_return, desired_horizon]], dtype=torch.float32)
        logits = bf(torch.as_tensor(state, dtype=torch.float32)[None], command)
        action = torch.distributions.Categorical(logits=logits).sample()
        next_state, reward, done, _ = env.step(int(action))
        states.append(state)
        actions.append(action)
        rewards.append(reward)
        desired_return -= reward
        desired_horizon = max(desired_horizon - 1, 1)
        state = next_state
        if done:
            break
    return {"states": np.array(states), "actions": torch.cat(actions), "rewards": np.array(rewards)}


def train_behavior(bf, optimizer, replay, batch_size=256, updates=100):
    for _ in range(updates):
        states, commands, actions = replay.sample(batch_size)
        loss = F.cross_entropy(bf(states, commands), actions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run(env, bf, optimizer, replay, iterations=1000, episodes_per_iter=15):
    for _ in range(iterations):
        train_behavior(bf, optimizer, replay)
        desired_return, desired_horizon = replay.sample_command()
        for _ in range(episodes_per_iter):
            replay.add(generate_episode(env, bf, desired_return, desired_horizon))
