# Source: https://github.com/victoresque/pytorch-template/issues/89
# Shape: Trainer feeds MetricTracker.update() with loss.item() and metric floats, runs the rolling validation under torch.no_grad(), and steps ReduceLROnPlateau with the tracker's float average, so the scheduler and tracker never see an attached tensor.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

LOOKBACK = 24
HORIZON = 4
BATCH = 32

_t = torch.arange(1500, dtype=torch.float32)
_GEN = torch.Generator().manual_seed(8)
SERIES = torch.sin(2 * math.pi * _t / 24) + 0.2 * torch.randn(1500, generator=_GEN)


class MetricTracker:
    def __init__(self, *keys, writer=None):
        self.writer = writer
        self._data = {k: {"total": 0.0, "counts": 0, "average": 0.0} for k in keys}

    def reset(self):
        for row in self._data.values():
            row["total"], row["counts"], row["average"] = 0.0, 0, 0.0

    def update(self, key, value, n=1):
        if self.writer is not None:
            self.writer.add_scalar(key, value)
        row = self._data[key]
        row["total"] += value * n
        row["counts"] += n
        row["average"] = row["total"] / row["counts"]

    def avg(self, key):
        return self._data[key]["average"]

    def result(self):
        return {k: v["average"] for k, v in self._data.items()}


def mae(output, target):
    with torch.no_grad():
        return torch.mean(torch.abs(output - target)).item()


class MLPForecaster(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LOOKBACK, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, HORIZON))

    def forward(self, x):
        return self.net(x)


def _windows(starts):
    x = torch.stack([SERIES[s:s + LOOKBACK] for s in starts])
    y = torch.stack([SERIES[s + LOOKBACK:s + LOOKBACK + HORIZON] for s in starts])
    return x, y


class Trainer:
    def __init__(self, model, metric_ftns, optimizer, lr_scheduler, valid_every=5):
        self.model = model
        self.metric_ftns = metric_ftns
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.valid_every = valid_every
        keys = ["loss"] + [m.__name__ for m in metric_ftns]
        self.train_metrics = MetricTracker(*keys)
        self.valid_metrics = MetricTracker(*keys)
        self.log = {}

    def _train_step(self, starts):
        self.model.train()
        data, target = _windows(starts)
        self.optimizer.zero_grad()
        output = self.model(data)
        loss = F.mse_loss(output, target)
        loss.backward()
        self.optimizer.step()
        self.train_metrics.update("loss", loss.item())
        for met in self.metric_ftns:
            self.train_metrics.update(met.__name__, met(output, target))

    def _valid_epoch(self, origin):
        # rolling-origin validation on the next block of the series
        self.model.eval()
        self.valid_metrics.reset()
        with torch.no_grad():
            starts = [origin + k for k in range(0, 64, 2)]
            data, target = _windows(starts)
            output = self.model(data)
            loss = F.mse_loss(output, target)
            self.valid_metrics.update("loss", loss.item())
            for met in self.metric_ftns:
                self.valid_metrics.update(met.__name__, met(output, target))
        return self.valid_metrics.result()

    def train(self, batches):
        for step, starts in enumerate(batches):
            self._train_step(starts)
            if (step + 1) % self.valid_every == 0:
                val_log = self._valid_epoch(origin=1300 + (step % 5) * 20)
                self.lr_scheduler.step(val_log["loss"])
                self.log = {**self.train_metrics.result(), **{"val_" + k: v for k, v in val_log.items()}}
                self.train_metrics.reset()
        return self.log


def make_batches(n):
    torch.manual_seed(0)
    return [[(i * 41 + j * 13) % 1200 for j in range(BATCH)] for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = MLPForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=2)
    trainer = Trainer(model, [mae], optimizer, lr_scheduler)
    return trainer, trainer.train(batches)
