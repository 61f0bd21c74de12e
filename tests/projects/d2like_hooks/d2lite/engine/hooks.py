# -*- coding: utf-8 -*-
import time

import torch

from d2lite.utils.events import EventWriter

from .train_loop import HookBase

__all__ = [
    "CallbackHook",
    "IterationTimer",
    "PeriodicWriter",
    "LRScheduler",
    "EpochSummary",
    "VisualizationHook",
]


class CallbackHook(HookBase):
    """
    Create a hook using callback functions provided by the user.
    """

    def __init__(self, *, before_train=None, after_train=None, before_step=None, after_step=None):
        self._before_train = before_train
        self._before_step = before_step
        self._after_step = after_step
        self._after_train = after_train

    def before_train(self):
        if self._before_train:
            self._before_train(self.trainer)

    def after_train(self):
        if self._after_train:
            self._after_train(self.trainer)
        del self._before_train, self._after_train
        del self._before_step, self._after_step

    def before_step(self):
        if self._before_step:
            self._before_step(self.trainer)

    def after_step(self):
        if self._after_step:
            self._after_step(self.trainer)


class IterationTimer(HookBase):
    def __init__(self, warmup_iter=3):
        self._warmup_iter = warmup_iter
        self._step_start = None
        self._total = 0.0

    def before_step(self):
        self._step_start = time.perf_counter()

    def after_step(self):
        sec = time.perf_counter() - self._step_start
        if self.trainer.iter >= self.trainer.start_iter + self._warmup_iter:
            self._total += sec
            self.trainer.storage.put_scalars(time=sec)


class LRScheduler(HookBase):
    def __init__(self, optimizer=None, scheduler=None):
        self._optimizer = optimizer
        self._scheduler = scheduler

    def before_train(self):
        self._optimizer = self._optimizer or self.trainer.optimizer

    def after_step(self):
        lr = self._optimizer.param_groups[0]["lr"]
        self.trainer.storage.put_scalar("lr", lr, smoothing_hint=False)
        self._scheduler.step()


class PeriodicWriter(HookBase):
    """
    Write events to EventStorage (by calling ``writer.write()``) periodically.
    """

    def __init__(self, writers, period=20):
        self._writers = writers
        for w in writers:
            assert isinstance(w, EventWriter), w
        self._period = period

    def after_step(self):
        if (self.trainer.iter + 1) % self._period == 0 or (
            self.trainer.iter == self.trainer.max_iter - 1
        ):
            for writer in self._writers:
                writer.write()
            self.trainer.storage.clear_images()

    def after_train(self):
        for writer in self._writers:
            writer.write()
            writer.close()
        self.trainer.storage.clear_images()


class EpochSummary(HookBase):
    """Report the mean training loss at the end of every epoch."""

    def __init__(self, iters_per_epoch):
        self._iters_per_epoch = iters_per_epoch
        self.epoch_losses = []

    def after_step(self):
        if (self.trainer.iter + 1) % self._iters_per_epoch == 0:
            self._flush()

    def after_train(self):
        if self.trainer.epoch_iters:
            self._flush(partial=True)

    def _flush(self, partial=False):
        n = self.trainer.epoch_iters
        mean = float(self.trainer.epoch_loss_sum) / n
        self.epoch_losses.append(mean)
        if not partial:
            self.trainer.storage.put_scalar("epoch_loss", mean, smoothing_hint=False)
            self.trainer.epoch_loss_sum = 0.0
            self.trainer.epoch_iters = 0


class VisualizationHook(HookBase):
    """Every `period` iterations, render the model's prediction on a fixed image."""

    def __init__(self, image, period=5):
        self._image = image
        self._period = period

    def after_step(self):
        if (self.trainer.iter + 1) % self._period != 0:
            return
        model = self.trainer.model
        with torch.no_grad():
            feat = model.backbone(model.preprocess_image([{"image": self._image}]))
            heat = feat.mean(1)[0]
        self.trainer.storage.put_image("vis/feature_heat", heat)
