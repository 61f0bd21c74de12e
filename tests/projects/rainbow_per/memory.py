# Modelled on memory.py of Kaixhin/Rainbow: ReplayMemory over a sum segment tree, sampled in
# proportion to priority ** alpha with importance-sampling weights, and update_priorities(idxs,
# priorities) writing the new priorities into the tree. Reduced: the tree is a flat list and the
# transitions are single vectors with n-step returns precomputed by the caller.
import random

import torch


class SegmentTree(object):
    def __init__(self, size):
        self.size = size
        self.index = 0
        self.full = False
        self.sum_tree = [0.0] * size
        self.data = [None] * size
        self.max = 1.0

    def append(self, data, value):
        self.data[self.index] = data
        self.update(self.index, value)
        self.index = (self.index + 1) % self.size
        self.full = self.full or self.index == 0

    def update(self, index, value):
        self.sum_tree[index] = value
        self.max = max(float(value), self.max)

    def total(self):
        return sum(float(v) for v in self.sum_tree)


class ReplayMemory(object):
    def __init__(self, args, capacity):
        self.capacity = capacity
        self.priority_exponent = args.priority_exponent
        self.priority_weight = args.priority_weight
        self.transitions = SegmentTree(capacity)

    def __len__(self):
        return self.capacity if self.transitions.full else self.transitions.index

    def append(self, state, action, reward, next_state, terminal):
        self.transitions.append((state, action, reward, next_state, not terminal), self.transitions.max)

    def sample(self, batch_size):
        n = len(self)
        weights = [float(self.transitions.sum_tree[i]) for i in range(n)]
        idxs = random.choices(range(n), weights=weights, k=batch_size)
        batch = [self.transitions.data[i] for i in idxs]
        states = torch.stack([b[0] for b in batch])
        actions = torch.tensor([b[1] for b in batch])
        returns = torch.tensor([b[2] for b in batch], dtype=torch.float32)
        next_states = torch.stack([b[3] for b in batch])
        nonterminals = torch.tensor([[float(b[4])] for b in batch])
        probs = torch.tensor([weights[i] for i in idxs]) / sum(weights)
        w = (n * probs) ** -self.priority_weight
        return idxs, states, actions, returns, next_states, nonterminals, w / w.max()

    def update_priorities(self, idxs, priorities):
        for idx, priority in zip(idxs, priorities):
            self.transitions.update(idx, priority.item() ** self.priority_exponent)
