# Source: https://github.com/wandb/wandb/issues/354
# Shape: a wandb-like experiment logger (init() returns a Run whose log() appends every row dict to self._history) is fed the raw loss tensor each step; each stored row keeps that step's autograd graph alive, and the report's fix was to log loss.item().
# Verdict: leak
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 100


class Run:
    def __init__(self, project, config=None):
        self.project = project
        self.config = dict(config or {})
        self._history = []
        self._start = time.time()

    def log(self, row, step=None):
        record = dict(row)
        record["_step"] = step if step is not None else len(self._history)
        record["_runtime"] = time.time() - self._start
        self._history.append(record)

    def summary(self):
        return self._history[-1] if self._history else {}


def init(project, config=None):
    return Run(project, config)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        h = F.relu(self.conv(x))
        return self.head(h.flatten(1))


def batches(n):
    for _ in range(n):
        yield torch.randn(16, 1, 8, 8), torch.randint(0, 10, (16,))


config = {"lr": 0.05, "epochs": 1}
run = init("leaky-logging", config)
model = ConvNet()
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"])
for step, (x, y) in enumerate(batches(STEPS)):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    run.log({"loss": loss, "lr": optimizer.param_groups[0]["lr"]}, step=step)  # TLK102
print(run.summary()["_step"])
