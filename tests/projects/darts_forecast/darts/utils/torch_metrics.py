"""A small torchmetrics-compatible subset (Metric / MetricCollection) as used by
darts' ``torch_metrics`` argument (darts passes a torchmetrics.MetricCollection)."""
import copy
from typing import Dict, List, Union

import torch


class Metric:
    """Base class: states registered with add_state, ``update`` runs without
    building a graph (torchmetrics' _enable_grad=False), compute/reset per epoch."""

    full_state_update = False

    def __init__(self):
        self._defaults: Dict[str, torch.Tensor] = {}
        self._update_count = 0
        self._computed = None

    def add_state(self, name, default, dist_reduce_fx=None):
        self._defaults[name] = default
        setattr(self, name, copy.deepcopy(default))

    def update(self, *args, **kwargs):
        self._computed = None
        self._update_count += 1
        with torch.no_grad():
            self._update(*args, **kwargs)

    def compute(self):
        if self._computed is None:
            self._computed = self._compute()
        return self._computed

    def reset(self):
        self._update_count = 0
        self._computed = None
        for name, default in self._defaults.items():
            setattr(self, name, copy.deepcopy(default))

    def _update(self, preds, target):
        raise NotImplementedError

    def _compute(self):
        raise NotImplementedError

    def clone(self):
        return copy.deepcopy(self)


class MeanAbsolutePercentageError(Metric):
    def __init__(self, epsilon: float = 1.17e-06):
        super().__init__()
        self.epsilon = epsilon
        self.add_state("sum_abs_per_error", default=torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")

    def _update(self, preds, target):
        abs_per_error = torch.abs(preds - target) / torch.clamp(torch.abs(target), min=self.epsilon)
        self.sum_abs_per_error += torch.sum(abs_per_error)
        self.total += target.numel()

    def _compute(self):
        return self.sum_abs_per_error / self.total


class MeanSquaredError(Metric):
    def __init__(self, squared: bool = True):
        super().__init__()
        self.squared = squared
        self.add_state("sum_squared_error", default=torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")

    def _update(self, preds, target):
        self.sum_squared_error += torch.sum((preds - target) ** 2)
        self.total += target.numel()

    def _compute(self):
        mse = self.sum_squared_error / self.total
        return mse if self.squared else torch.sqrt(mse)


class MetricCollection:
    def __init__(self, metrics: Union[List[Metric], Dict[str, Metric]], prefix: str = ""):
        if isinstance(metrics, list):
            metrics = {type(m).__name__: m for m in metrics}
        self._metrics = dict(metrics)
        self.prefix = prefix

    def __len__(self):
        return len(self._metrics)

    def clone(self, prefix: str = ""):
        mc = copy.deepcopy(self)
        mc.prefix = prefix
        return mc

    def update(self, *args, **kwargs):
        for m in self._metrics.values():
            m.update(*args, **kwargs)

    def compute(self):
        return {self.prefix + k: m.compute() for k, m in self._metrics.items()}

    def reset(self):
        for m in self._metrics.values():
            m.reset()
