# Source: https://github.com/Kaixhin/Rainbow/pull/33
# Shape: a distributional DQN agent learns from a prioritized replay memory: the per-sample loss is weighted and backwarded, then the memory's priorities are updated from loss.detach() converted to a NumPy array and stored in a NumPy segment tree, so the memory never holds a tensor with a graph.
# Verdict: clean
import numpy as np
import torch
import torch.nn as nn


class SegmentTree:
    def __init__(self, size):
        self.size = size
        self.sum_tree = np.zeros(2 * size - 1, dtype=np.float32)
        self.max = 1.0

    def update(self, indices, values):
        for index, value in zip(indices, values):
            tree_index = index + self.size - 1
            change = value - self.sum_tree[tree_index]
            while tree_index >= 0:
                self.sum_tree[tree_index] += change
                tree_index = (tree_index - 1) // 2 if tree_index else -1
        self.max = max(self.max, float(np.max(values)))


class ReplayMemory:
    def __init__(self, capacity, priority_exponent=0.5):
        self.transitions = SegmentTree(capacity)
        self.priority_exponent = priority_exponent

    def update_priorities(self, idxs, priorities):
        self.transitions.update(idxs, np.power(priorities, self.priority_exponent))


class Agent:
    def __init__(self, online_net, target_net, lr=6.25e-5):
        self.online_net = online_net
        self.target_net = target_net
        self.optimiser = torch.optim.Adam(online_net.parameters(), lr=lr, eps=1.5e-4)

    def learn(self, mem, idxs, states, actions, target_dist, weights):
        log_p = self.online_net(states, log=True)
        log_p_a = log_p[range(states.size(0)), actions]
        loss = -torch.sum(target_dist * log_p_a, 1)
        self.online_net.zero_grad()
        (weights * loss).mean().backward()
        nn.utils.clip_grad_norm_(self.online_net.parameters(), 10)
        self.optimiser.step()
        mem.update_priorities(idxs, loss.detach().cpu().numpy())


def train(agent, mem, sampler, steps):
    for _ in range(steps):
        idxs, states, actions, target_dist, weights = sampler()
        agent.learn(mem, idxs, states, actions, target_dist, weights)
