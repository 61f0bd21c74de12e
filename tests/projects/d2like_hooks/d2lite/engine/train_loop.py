# -*- coding: utf-8 -*-
import logging
import time
import weakref
from typing import List, Mapping, Optional

import torch

from d2lite.utils.events import EventStorage, get_event_storage

__all__ = ["HookBase", "TrainerBase", "SimpleTrainer"]


class HookBase:
    """
    Base class for hooks that can be registered with :class:`TrainerBase`.
    ::
        hook.before_train()
        for iter in range(start_iter, max_iter):
            hook.before_step()
            trainer.run_step()
            hook.after_step()
        iter += 1
        hook.after_train()
    """

    trainer: "TrainerBase" = None

    def before_train(self):
        pass

    def after_train(self):
        pass

    def before_step(self):
        pass

    def after_backward(self):
        pass

    def after_step(self):
        pass

    def state_dict(self):
        return {}


class TrainerBase:
    """
    Base class for iterative trainer with hooks.
    """

    def __init__(self) -> None:
        self._hooks: List[HookBase] = []
        self.iter: int = 0
        self.start_iter: int = 0
        self.max_iter: int
        self.storage: EventStorage

    def register_hooks(self, hooks: List[Optional[HookBase]]) -> None:
        hooks = [h for h in hooks if h is not None]
        for h in hooks:
            assert isinstance(h, HookBase)
            # To avoid circular reference, hooks and trainer cannot own each other.
            h.trainer = weakref.proxy(self)
        self._hooks.extend(hooks)

    def train(self, start_iter: int, max_iter: int):
        logger = logging.getLogger(__name__)
        logger.info("Starting training from iteration {}".format(start_iter))

        self.iter = self.start_iter = start_iter
        self.max_iter = max_iter

        with EventStorage(start_iter) as self.storage:
            try:
                self.before_train()
                for self.iter in range(start_iter, max_iter):
                    self.before_step()
                    self.run_step()
                    self.after_step()
                self.iter += 1
            except Exception:
                logger.exception("Exception during training:")
                raise
            finally:
                self.after_train()

    def before_train(self):
        for h in self._hooks:
            h.before_train()

    def after_train(self):
        self.storage.iter = self.iter
        for h in self._hooks:
            h.after_train()

    def before_step(self):
        self.storage.iter = self.iter
        for h in self._hooks:
            h.before_step()

    def after_backward(self):
        for h in self._hooks:
            h.after_backward()

    def after_step(self):
        for h in self._hooks:
            h.after_step()

    def run_step(self):
        raise NotImplementedError


class SimpleTrainer(TrainerBase):
    """
    A simple trainer for the most common type of task:
    single-cost single-optimizer single-data-source iterative optimization.
    """

    def __init__(self, model, data_loader, optimizer, gather_metric_period=1,
                 zero_grad_before_forward=False):
        super().__init__()
        model.train()
        self.model = model
        self.data_loader = data_loader
        self._data_loader_iter_obj = None
        self.optimizer = optimizer
        self.gather_metric_period = gather_metric_period
        self.zero_grad_before_forward = zero_grad_before_forward
        # running sum of the total loss over the current epoch (see EpochSummary hook)
        self.epoch_loss_sum = 0.0
        self.epoch_iters = 0

    def run_step(self):
        """
        Implement the standard training logic described above.
        """
        assert self.model.training, "[SimpleTrainer] model was changed to eval mode!"
        start = time.perf_counter()
        data = next(self._data_loader_iter)
        data_time = time.perf_counter() - start

        if self.zero_grad_before_forward:
            self.optimizer.zero_grad()

        loss_dict = self.model(data)
        if isinstance(loss_dict, torch.Tensor):
            losses = loss_dict
            loss_dict = {"total_loss": loss_dict}
        else:
            losses = sum(loss_dict.values())
        if not self.zero_grad_before_forward:
            self.optimizer.zero_grad()
        losses.backward()

        self.epoch_loss_sum += losses  # expect: TLK101
        self.epoch_iters += 1

        self.after_backward()

        self._write_metrics(loss_dict, data_time)

        self.optimizer.step()

    @property
    def _data_loader_iter(self):
        if self._data_loader_iter_obj is None:
            self._data_loader_iter_obj = iter(self.data_loader)
        return self._data_loader_iter_obj

    def _write_metrics(self, loss_dict: Mapping[str, torch.Tensor], data_time: float,
                       prefix: str = "", iter: Optional[int] = None) -> None:
        iter = self.iter if iter is None else iter
        if (iter + 1) % self.gather_metric_period == 0:
            SimpleTrainer.write_metrics(loss_dict, data_time, iter, prefix)

    @staticmethod
    def write_metrics(loss_dict: Mapping[str, torch.Tensor], data_time: float, cur_iter: int,
                      prefix: str = "") -> None:
        metrics_dict = {k: v.detach().cpu().item() for k, v in loss_dict.items()}
        metrics_dict["data_time"] = data_time

        storage = get_event_storage()
        storage.put_scalar("rank_data_time", data_time, cur_iter=cur_iter)
        data_time = metrics_dict.pop("data_time")
        storage.put_scalar("data_time", data_time, cur_iter=cur_iter)

        total_losses_reduced = sum(metrics_dict.values())
        if not (total_losses_reduced == total_losses_reduced):  # NaN check
            raise FloatingPointError(
                f"Loss became infinite or NaN at iteration={cur_iter}!\nloss_dict = {metrics_dict}"
            )
        storage.put_scalar("{}total_loss".format(prefix), total_losses_reduced, cur_iter=cur_iter)
        if len(metrics_dict) > 1:
            storage.put_scalars(cur_iter=cur_iter, **metrics_dict)
