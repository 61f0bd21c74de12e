# Source: https://github.com/recursionpharma/gflownet/pull/130
# Shape: a trajectory-balance trainer pushes every sampled batch into a ring replay buffer that lives across training steps; the log-rewards and log-probs are detached and moved to the CPU before they are pushed, so the buffer holds plain data.
# Verdict: clean
import random

import torch
import torch.nn as nn


class ReplayBuffer:
    def __init__(self, capacity, warmup):
        self.capacity = capacity
        self.warmup = warmup
        self.buffer = []
        self.position = 0

    def push(self, *args):
        if len(self.buffer) < self.capacity:
            self.buffer.append(None)
        self.buffer[self.position] = tuple(args)
        self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        idxs = random.sample(range(len(self.buffer)), batch_size)
        return [self.buffer[i] for i in idxs]

    def __len__(self):
        return len(self.buffer)


class TrajectoryBalance:
    def __init__(self, policy, proxy, cfg):
        self.policy = policy
        self.proxy = proxy
        self.log_z = nn.Parameter(torch.zeros(1))
        self.opt = torch.optim.Adam(list(policy.parameters()) + [self.log_z], lr=cfg["lr"])
        self.replay = ReplayBuffer(cfg["replay_capacity"], cfg["replay_warmup"])
        self.batch_size = cfg["batch_size"]
        self.n_features = cfg["n_features"]

    def sample_trajectories(self, n):
        states = torch.randn(n, self.n_features)
        logits = self.policy(states)
        dist = torch.distributions.Categorical(logits=logits)
        actions = dist.sample()
        return states, actions, dist.log_prob(actions)

    def train_step(self, it):
        states, actions, log_pf = self.sample_trajectories(self.batch_size)
        log_reward = self.proxy(states).squeeze(-1)
        self.replay.push(states, actions, log_reward.detach().cpu(), log_pf.detach().cpu())
        loss = (self.log_z + log_pf - log_reward).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return {"loss": loss.item(), "log_z": self.log_z.item(), "step": it}

    def run(self, steps):
        info = {}
        for it in steps:
            info = self.train_step(it)
        return info
