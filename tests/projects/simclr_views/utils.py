import os
from collections import defaultdict

import torch


def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    if filename is not None:
        torch.save(state, filename)
    return is_best


def accuracy(output, target, topk=(1,)):
    """Top-k accuracy (percent) of the contrastive logits."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
        return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / batch_size) for k in topk]


class ScalarWriter:
    """SummaryWriter stand-in: per-tag sums for the epoch means, last value and step."""

    def __init__(self, log_dir=None):
        self.log_dir = log_dir or os.path.join("runs", "simclr")
        self.sums = defaultdict(float)
        self.counts = defaultdict(int)
        self.last = {}

    def add_scalar(self, tag, value, global_step=None):
        self.sums[tag] += value
        self.counts[tag] += 1
        self.last[tag] = (global_step, value)

    def epoch_means(self):
        means = {tag: float(self.sums[tag] / self.counts[tag]) for tag in self.sums}
        self.sums.clear()
        self.counts.clear()
        return means


class FeatureBank:
    """Fixed-size FIFO of embeddings for the kNN monitor."""

    def __init__(self, size, dim):
        self.size = size
        self.features = torch.zeros(0, dim)

    def push(self, feats):
        self.features = torch.cat([self.features, feats], dim=0)[-self.size:]

    def __len__(self):
        return self.features.size(0)


class EMAStat:
    """Exponential moving average of a scalar statistic."""

    def __init__(self, momentum=0.9):
        self.momentum = momentum
        self.value = None

    def update(self, x):
        self.value = x if self.value is None else self.momentum * self.value + (1 - self.momentum) * x
        return self.value
