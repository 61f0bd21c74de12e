"""Loss weighting schemes: uncertainty weighting and Dynamic Weight Average."""
import math

import torch


def uncertainty_weighted(losses, logsigma):
    """sum_i exp(-s_i)/2 * L_i + s_i/2 ; the caller backwards the result."""
    return sum(0.5 * torch.exp(-logsigma[i]) * losses[i] + 0.5 * logsigma[i] for i in range(len(losses)))


class DWA:
    """Dynamic Weight Average: weights from the ratio of the last two epochs' mean task losses."""

    def __init__(self, n_tasks=3, temp=2.0):
        self.n_tasks, self.temp = n_tasks, temp
        self.step_losses = []
        self.epoch_means = []

    def record(self, task_losses):
        self.step_losses.append(torch.stack(task_losses))

    def end_epoch(self):
        self.epoch_means.append([float(v) for v in torch.stack(self.step_losses).mean(dim=0)])
        self.step_losses = []

    def weights(self):
        if len(self.epoch_means) < 2:
            return [1.0] * self.n_tasks
        r = [a / b for a, b in zip(self.epoch_means[-1], self.epoch_means[-2])]
        e = [math.exp(x / self.temp) for x in r]
        return [self.n_tasks * x / sum(e) for x in e]
