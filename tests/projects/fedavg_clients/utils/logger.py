"""Minimal scalar logger in the spirit of the tensorboard writer handed to LocalUpdate."""
from collections import defaultdict


class ScalarLogger:
    def __init__(self):
        self.totals = defaultdict(float)
        self.counts = defaultdict(int)
        self.last = {}

    def add_scalar(self, tag, value):
        self.totals[tag] += value
        self.counts[tag] += 1
        self.last[tag] = value

    def mean(self, tag):
        return self.totals[tag] / max(self.counts[tag], 1)

    def summary(self):
        return {k: float(self.mean(k)) for k in self.totals}
