"""Small bookkeeping helpers used by the solver."""
import torch


class LossTracker:
    """Sample-weighted running average of the training objective."""

    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return float(self.total) / max(self.count, 1)


class SNRSmoother:
    """Exponential moving average of the batch SI-SNR, for the progress line."""

    def __init__(self, decay=0.9):
        self.decay = decay
        self.value = None

    def update(self, x):
        if self.value is None:
            self.value = x
        else:
            self.value = self.decay * self.value + (1 - self.decay) * x
        return self.value


class ExampleBank:
    """Keeps the last k separated examples for listening."""

    def __init__(self, k=4):
        self.k = k
        self.items = []

    def add(self, est):
        self.items.append(est)
        if len(self.items) > self.k:
            self.items.pop(0)

