# Modelled on replay_memory.py of pranz24/pytorch-soft-actor-critic (a ring buffer of transition
# tuples), extended with proportional prioritized sampling as PER forks of it do: sample()
# also returns the indices and importance weights, update_priorities() stores the new TD errors.
import random

import torch


class PrioritizedReplayMemory:
    def __init__(self, capacity, seed, alpha=0.6, beta=0.4, epsilon=1e-3):
        random.seed(seed)
        self.capacity = capacity
        self.alpha = alpha
        self.beta = beta
        self.epsilon = epsilon
        self.buffer = []
        self.priorities = []
        self.position = 0

    def push(self, state, action, reward, next_state, done):
        max_priority = max((float(p) for p in self.priorities), default=1.0)
        if len(self.buffer) < self.capacity:
            self.buffer.append(None)
            self.priorities.append(None)
        self.buffer[self.position] = (state, action, reward, next_state, done)
        self.priorities[self.position] = max_priority
        self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        scaled = [float(p) ** self.alpha for p in self.priorities]
        total = sum(scaled)
        indices = random.choices(range(len(self.buffer)), weights=scaled, k=batch_size)
        weights = torch.tensor([(len(self.buffer) * scaled[i] / total) ** -self.beta for i in indices])
        weights = weights / weights.max()
        batch = [self.buffer[i] for i in indices]
        state, action, reward, next_state, done = map(torch.stack, zip(*[[torch.as_tensor(v, dtype=torch.float32) for v in t] for t in batch]))
        return state, action, reward, next_state, done, indices, weights

    def update_priorities(self, indices, priorities):
        for index, priority in zip(indices, priorities):
            self.priorities[index] = priority + self.epsilon  # known-false: TLK102 (the same leak as sac.py:61, where its author marked it; reported in the helper that keeps it)

    def __len__(self):
        return len(self.buffer)
