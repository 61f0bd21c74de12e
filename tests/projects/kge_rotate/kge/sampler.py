"""Queue of recent hard-negative scores used to reweight the self-adversarial term."""
from collections import deque

import torch


class HardNegativeQueue:
    def __init__(self, k=4, capacity=256):
        self.k = k
        self.queue = deque(maxlen=capacity)

    def push(self, scores):
        top = scores.topk(self.k, dim=1).values
        self.queue.append(top)

    def temperature(self, base):
        if not self.queue:
            return base
        spread = torch.stack([q.std() for q in self.queue]).mean()
        return base / (1.0 + float(spread))
