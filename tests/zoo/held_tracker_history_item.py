# Source: https://github.com/EmbarkStudios/emote/pull/122
# Shape: the same tracker, fed with bc_loss.item() and a detached copy of the predictions: nothing stored carries a graph.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn as nn


class MetricTracker:
    def __init__(self):
        self.history = defaultdict(list)

    def log(self, name, value):
        self.history[name].append(value)


def train(policy: nn.Module, batches, steps):
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    tracker = MetricTracker()
    for step in range(steps):
        obs, target_actions = next(batches)
        predicted = policy(obs)
        bc_loss = nn.functional.mse_loss(predicted, target_actions)
        optimizer.zero_grad()
        bc_loss.backward()
        optimizer.step()
        tracker.log("loss", bc_loss.item())
        tracker.log("action_norm", predicted.detach().norm(dim=-1).mean())
