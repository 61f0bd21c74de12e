"""A one-cycle learning-rate schedule stepped every iteration (linear warm-up, cosine decay)."""
import math


class CycleScheduler:
    def __init__(self, optimizer, lr_max, n_iter, warmup_proportion=0.05, divider=25):
        self.optimizer = optimizer
        self.lr_max = lr_max
        self.n_iter = max(n_iter, 1)
        self.warmup = max(int(n_iter * warmup_proportion), 1)
        self.lr_min = lr_max / divider
        self.it = 0

    def lr_at(self, it):
        if it < self.warmup:
            return self.lr_min + (self.lr_max - self.lr_min) * it / self.warmup
        progress = (it - self.warmup) / max(self.n_iter - self.warmup, 1)
        return self.lr_min + (self.lr_max - self.lr_min) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))

    def step(self):
        lr = self.lr_at(self.it)
        self.it += 1
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr
