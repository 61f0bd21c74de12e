"""Training utilities: the optimizer step, GAE, and a scalar logger standing in for TensorBoard."""
from collections import defaultdict

import torch


def optimize(optimizer, loss, retain_graph=False, max_grad_norm=None, parameters=None):
    optimizer.zero_grad()
    loss.backward(retain_graph=retain_graph)
    if max_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(parameters, max_grad_norm)
    optimizer.step()


def calculate_gae(values, rewards, dones, next_values, gamma, lambd):
    # Calculate TD errors.
    deltas = rewards + gamma * next_values * (1 - dones) - values
    # Initialize gae.
    gaes = torch.empty_like(rewards)
    # Calculate gae recursively from behind.
    gaes[-1] = deltas[-1]
    for t in reversed(range(rewards.size(0) - 1)):
        gaes[t] = deltas[t] + gamma * lambd * (1 - dones[t]) * gaes[t + 1]
    return gaes + values, (gaes - gaes.mean()) / (gaes.std() + 1e-8)


class ScalarLogger:
    """Collects scalars per tag and step (kept for the learning curves); flush() prints the latest."""

    def __init__(self):
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, value, step):
        self.scalars[tag].append((step, value))

    def flush(self):
        latest = {tag: float(values[-1][1]) for tag, values in self.scalars.items() if values}
        print(" ".join(f"{tag}={value:.3f}" for tag, value in sorted(latest.items())))
        return latest
