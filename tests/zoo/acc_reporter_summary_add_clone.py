# Source: https://github.com/pfnet/pytorch-pfn-extras/pull/49
# Shape: a small reporting module keeps a running Summary per metric; Summary.add sums value.clone() into self._total, and clone() keeps the autograd graph, so every reported step's loss graph stays chained to the summary until the epoch's log is written (AMP trainer with a GradScaler).
# Verdict: leak
import torch
import torch.nn as nn


class Summary:
    """Mean of the values reported since the last reset."""

    def __init__(self):
        self._total = 0.0
        self._n = 0

    def add(self, value, weight=1):
        if torch.is_tensor(value):
            value = value.clone()
        self._total += value * weight  # TLK101
        self._n += weight

    def compute(self):
        return self._total / max(self._n, 1)


class Reporter:
    def __init__(self):
        self.summaries = {}

    def report(self, observation):
        for key, value in observation.items():
            self.summaries.setdefault(key, Summary()).add(value)

    def flush(self):
        means = {k: float(s.compute()) for k, s in self.summaries.items()}
        self.summaries = {}
        return means


class AmpTrainer:
    def __init__(self, net: nn.Module, lr=1e-3):
        self.net = net
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.AdamW(net.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        self.reporter = Reporter()

    def step(self, inputs, labels):
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", enabled=False):
            logits = self.net(inputs)
            objective = self.crit(logits, labels)
        self.scaler.scale(objective).backward()
        self.scaler.step(self.opt)
        self.scaler.update()
        acc = (logits.argmax(1) == labels).float().mean()
        self.reporter.report({"train/loss": objective, "train/acc": acc})

    def run_epoch(self, loader):
        self.net.train()
        for inputs, labels in loader:
            self.step(inputs, labels)
        return self.reporter.flush()
