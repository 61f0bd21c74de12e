"""Logging of training statistics and the optimisation step shared by the learners."""
from collections import defaultdict

import torch


class Logger:
    def __init__(self):
        self.stats = defaultdict(list)

    def log_stat(self, key, value, t):
        self.stats[key].append((t, value))

    def print_recent_stats(self):
        lines = []
        for key in sorted(self.stats):
            window = [float(value) for _, value in self.stats[key][-5:]]
            lines.append(f"{key}: {sum(window) / len(window):.4f}")
        print("  ".join(lines))


def optimise(optimiser, loss, params, grad_norm_clip):
    optimiser.zero_grad()
    # The mixer's hypernetworks and the agents share the graph below the loss.
    loss.backward(retain_graph=True)  # expect: TLK201
    grad_norm = torch.nn.utils.clip_grad_norm_(params, grad_norm_clip)
    optimiser.step()
    return grad_norm
