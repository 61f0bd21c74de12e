import os
from collections import defaultdict

import torch


class MetricLogger(object):
    """Tiny stand-in for the Lightning CSV/TensorBoard logger: keeps every logged value."""

    def __init__(self, save_dir: str = "logs/", name: str = "BetaVAE"):
        self.save_dir = save_dir
        self.name = name
        self.version = 0
        self.history = defaultdict(list)
        self.steps = []

    def log_metrics(self, metrics: dict, step: int = None):
        self.steps.append(step)
        for key, val in metrics.items():
            self.history[key].append(val)  # expect: TLK102

    def summary(self, last: int = 10):
        return {k: sum(float(v) for v in vals[-last:]) / len(vals[-last:]) for k, vals in self.history.items()}

    def log_dir(self):
        return os.path.join(self.save_dir, self.name, "version_{}".format(self.version))


def grad_norm(parameters, norm_type: float = 2.0) -> float:
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    total = torch.norm(torch.stack([torch.norm(g.detach(), norm_type) for g in grads]), norm_type)
    return total.item()  # CLEAN: returns a Python float


def seed_everything(seed: int):
    torch.manual_seed(seed)
