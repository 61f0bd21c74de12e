"""Minimal subset of the PyTorch Lightning API that darts' PLForecastingModule and
TorchForecastingModel rely on (LightningModule.log/backward hooks, Trainer.fit with
automatic optimisation, callbacks).  Semantics follow Lightning 2.x."""
import math
from collections import defaultdict
from typing import Any, Dict, List, Optional

import torch
import torch.nn as nn


def recursive_detach(value):
    if torch.is_tensor(value):
        return value.detach()
    if isinstance(value, dict):
        return {k: recursive_detach(v) for k, v in value.items()}
    return value


class _ResultMetric:
    """Accumulates a logged value over an epoch (weighted mean by batch size)."""

    def __init__(self):
        self.value = torch.tensor(0.0)
        self.cumulated_batch_size = torch.tensor(0.0)
        self.last = None

    def update(self, value: torch.Tensor, batch_size: int) -> None:
        value = value.float().mean()
        self.last = value
        self.value = self.value + value * batch_size
        self.cumulated_batch_size = self.cumulated_batch_size + batch_size

    def compute(self):
        return self.value / self.cumulated_batch_size


class _ResultCollection(defaultdict):
    def __init__(self):
        super().__init__(_ResultMetric)

    def log(self, name, value, batch_size=1, enable_graph=False):
        # no metrics should be logged with graphs
        if not enable_graph:
            value = recursive_detach(value)
        if not torch.is_tensor(value):
            value = torch.tensor(float(value))
        self[name].update(value, batch_size)

    def epoch_values(self):
        return {k: m.compute() for k, m in self.items()}


class Callback:
    def on_fit_start(self, trainer, pl_module): ...
    def on_fit_end(self, trainer, pl_module): ...
    def on_train_epoch_start(self, trainer, pl_module): ...
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx): ...
    def on_train_epoch_end(self, trainer, pl_module): ...
    def on_validation_epoch_end(self, trainer, pl_module): ...


class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.trainer = None

    # -- logging ------------------------------------------------------------
    def log(self, name, value, batch_size=1, prog_bar=False, logger=True, on_step=None,
            on_epoch=None, sync_dist=False, enable_graph=False):
        if self.trainer is not None:
            self.trainer._results.log(name, value, batch_size=batch_size, enable_graph=enable_graph)

    def log_dict(self, dictionary, **kwargs):
        for k, v in dictionary.items():
            self.log(k, v, **{k2: v2 for k2, v2 in kwargs.items() if k2 != "batch_size"})

    # -- hooks --------------------------------------------------------------
    def backward(self, loss, *args, **kwargs):
        """Called to perform backward on the loss returned in training_step.
        Override this hook with your own implementation if you need to."""
        loss.backward(*args, **kwargs)

    def on_fit_start(self): ...
    def on_fit_end(self): ...
    def on_train_epoch_start(self): ...
    def on_train_epoch_end(self): ...
    def on_validation_epoch_end(self): ...

    @property
    def current_epoch(self):
        return self.trainer.current_epoch if self.trainer is not None else 0

    @property
    def global_step(self):
        return self.trainer.global_step if self.trainer is not None else 0


class Trainer:
    def __init__(self, max_epochs: int = 1, max_steps: int = -1,
                 callbacks: Optional[List[Callback]] = None, gradient_clip_val=None,
                 check_val_every_n_epoch: int = 1, enable_progress_bar: bool = False,
                 logger=False):
        self.max_epochs = max_epochs
        self.max_steps = max_steps
        self.callbacks = list(callbacks or [])
        self.gradient_clip_val = gradient_clip_val
        self.check_val_every_n_epoch = check_val_every_n_epoch
        self.current_epoch = 0
        self.global_step = 0
        self.callback_metrics: Dict[str, torch.Tensor] = {}
        self.logged_metrics: Dict[str, torch.Tensor] = {}
        self._results = _ResultCollection()
        self.should_stop = False

    def _call(self, hook, model, *args):
        getattr(model, hook)(*args)
        for cb in self.callbacks:
            getattr(cb, hook)(self, model, *args)

    def fit(self, model: LightningModule, train_dataloaders, val_dataloaders=None):
        model.trainer = self
        opt_cfg = model.configure_optimizers()
        optimizer = opt_cfg["optimizer"] if isinstance(opt_cfg, dict) else opt_cfg
        sched_cfg = opt_cfg.get("lr_scheduler") if isinstance(opt_cfg, dict) else None
        self.optimizers = [optimizer]

        self._call("on_fit_start", model)
        model.train()
        for epoch in range(self.max_epochs):
            self.current_epoch = epoch
            self._results = _ResultCollection()
            self._call("on_train_epoch_start", model)
            for batch_idx, batch in enumerate(train_dataloaders):
                loss = model.training_step(batch, batch_idx)
                optimizer.zero_grad(set_to_none=True)
                model.backward(loss)
                if self.gradient_clip_val:
                    nn.utils.clip_grad_norm_(model.parameters(), self.gradient_clip_val)
                optimizer.step()
                self.global_step += 1
                # like Lightning's ClosureResult: hooks only see a detached copy
                outputs = {"loss": loss.detach().clone()}
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, model, outputs, batch, batch_idx)
                if 0 < self.max_steps <= self.global_step:
                    self.should_stop = True
                    break

            if val_dataloaders is not None and (epoch + 1) % self.check_val_every_n_epoch == 0:
                model.eval()
                with torch.no_grad():
                    for batch_idx, batch in enumerate(val_dataloaders):
                        model.validation_step(batch, batch_idx)
                self._call("on_validation_epoch_end", model)
                model.train()

            self._call("on_train_epoch_end", model)
            self.callback_metrics = self._results.epoch_values()
            self.logged_metrics.update(self.callback_metrics)

            if sched_cfg is not None:
                scheduler = sched_cfg["scheduler"]
                monitor = sched_cfg.get("monitor")
                if monitor is not None and monitor in self.callback_metrics:
                    scheduler.step(float(self.callback_metrics[monitor]))
                elif monitor is None:
                    scheduler.step()
            if self.should_stop:
                break

        self._call("on_fit_end", model)
        return self
