"""Running mean of pooled graph embeddings, used to centre embeddings at evaluation."""
import torch


class RunningStat:
    def __init__(self, momentum=0.9):
        self.momentum = momentum
        self.mean = None
        self.count = 0

    def update(self, x):
        if self.mean is None:
            self.mean = torch.zeros_like(x)
        self.mean = self.momentum * self.mean + (1 - self.momentum) * x
        self.count += 1
