"""Runner and loops (iteration based training, validation)."""
from typing import Dict, List, Optional

import torch

from ..logging import MessageHub
from ..registry import HOOKS, METRICS, OPTIM_WRAPPERS
from .hooks import Hook

PRIORITIES = {'HIGHEST': 0, 'VERY_HIGH': 10, 'HIGH': 30, 'ABOVE_NORMAL': 40, 'NORMAL': 50,
              'BELOW_NORMAL': 60, 'LOW': 70, 'VERY_LOW': 90, 'LOWEST': 100}


class IterBasedTrainLoop:
    """Loop for iteration-based training."""

    def __init__(self, runner, dataloader, max_iters: int, val_interval: int = 1000):
        self.runner = runner
        self.dataloader = dataloader
        self._max_iters = int(max_iters)
        self.val_interval = val_interval
        self._iter = 0
        self.dataloader_iterator = iter(self._infinite(dataloader))

    @staticmethod
    def _infinite(dataloader):
        while True:
            yield from dataloader

    @property
    def max_iters(self):
        return self._max_iters

    @property
    def iter(self):
        return self._iter

    def run(self):
        self.runner.call_hook('before_train')
        self.runner.call_hook('before_train_epoch')
        while self._iter < self._max_iters:
            self.runner.model.train()
            data_batch = next(self.dataloader_iterator)
            self.run_iter(data_batch)
            if (self.runner.val_loop is not None
                    and (self._iter % self.val_interval == 0 or self._iter == self._max_iters)):
                self.runner.val_loop.run()
        self.runner.call_hook('after_train_epoch')
        self.runner.call_hook('after_train')
        return self.runner.model

    def run_iter(self, data_batch) -> None:
        self.runner.call_hook('before_train_iter', batch_idx=self._iter, data_batch=data_batch)
        # outputs is a dict of loss and metric tensors for logging.
        outputs = self.runner.model.train_step(data_batch, optim_wrapper=self.runner.optim_wrapper)
        self.runner.call_hook('after_train_iter', batch_idx=self._iter, data_batch=data_batch,
                              outputs=outputs)
        self._iter += 1


class ValLoop:
    """Loop for validation."""

    def __init__(self, runner, dataloader, evaluator):
        self.runner = runner
        self.dataloader = dataloader
        self.evaluator = evaluator

    def run(self) -> dict:
        self.runner.call_hook('before_val_epoch')
        self.runner.model.eval()
        for data_batch in self.dataloader:
            self.run_iter(data_batch)
        metrics = self.evaluator.evaluate()
        self.runner.call_hook('after_val_epoch', metrics=metrics)
        return metrics

    @torch.no_grad()
    def run_iter(self, data_batch) -> None:
        outputs = self.runner.model.val_step(data_batch)
        self.evaluator.process(data_samples=outputs, data_batch=data_batch)


class Runner:
    """A minimal runner: builds the loops, optim wrapper and hooks from configs."""

    def __init__(self, model, train_dataloader, optim_wrapper: Dict, train_cfg: Dict,
                 val_dataloader=None, val_evaluator=None, default_hooks: Optional[Dict] = None,
                 custom_hooks: Optional[List] = None, experiment_name: str = 'exp'):
        self.model = model
        self.experiment_name = experiment_name
        self.message_hub = MessageHub(experiment_name)
        self.logger_lines = []
        self.optim_wrapper = self.build_optim_wrapper(optim_wrapper)
        self.train_loop = IterBasedTrainLoop(self, train_dataloader, train_cfg['max_iters'],
                                             train_cfg.get('val_interval', 1000))
        self.val_loop = None
        if val_dataloader is not None:
            self.val_loop = ValLoop(self, val_dataloader, METRICS.build(val_evaluator))
        self._hooks: List[Hook] = []
        default_hooks = default_hooks or dict(runtime_info=dict(type='RuntimeInfoHook'),
                                              logger=dict(type='LoggerHook'))
        for cfg in list(default_hooks.values()) + list(custom_hooks or []):
            self.register_hook(HOOKS.build(cfg))

    def build_optim_wrapper(self, cfg: Dict):
        cfg = dict(cfg)
        optim_cfg = dict(cfg.pop('optimizer'))
        optim_cls = getattr(torch.optim, optim_cfg.pop('type'))
        optimizer = optim_cls(self.model.parameters(), **optim_cfg)
        cfg.setdefault('type', 'OptimWrapper')
        return OPTIM_WRAPPERS.build(cfg, optimizer=optimizer)

    def register_hook(self, hook: Hook) -> None:
        self._hooks.append(hook)
        self._hooks.sort(key=lambda h: PRIORITIES[h.priority])

    @property
    def hooks(self):
        return self._hooks

    @property
    def iter(self):
        return self.train_loop.iter

    @property
    def max_iters(self):
        return self.train_loop.max_iters

    def call_hook(self, fn_name: str, **kwargs) -> None:
        for hook in self._hooks:
            getattr(hook, fn_name)(self, **kwargs)

    def train(self):
        return self.train_loop.run()
