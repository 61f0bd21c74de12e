# Source: https://github.com/EmbarkStudios/emote/pull/122
# Shape: a MetricTracker class whose log method appends its argument to self.history; the training loop calls tracker.log("loss", loss) with the attached loss every step, so the history holds every step's graph.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn


class MetricTracker:
    def __init__(self):
        self.history = defaultdict(list)

    def log(self, name, value):
        self.history[name].append(value)

    def mean(self, name, last=100):
        values = self.history[name][-last:]
        return sum(float(v) for v in values) / max(len(values), 1)


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
        tracker.log("loss", bc_loss)  # TLK102
        tracker.log("step", step)
        if step % 1000 == 0:
            print(step, tracker.mean("loss"))
