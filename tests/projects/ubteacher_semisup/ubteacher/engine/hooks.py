# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import time
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from ubteacher.engine.train_loop import HookBase
from ubteacher.utils.meters import AverageMeter


class IterationTimer(HookBase):
    def __init__(self):
        self._step_start = None
        self._total = 0.0

    def before_step(self):
        self._step_start = time.perf_counter()

    def after_step(self):
        elapsed = time.perf_counter() - self._step_start
        self._total += elapsed
        self.trainer.storage.put_scalars(time=elapsed)


class LRScheduler(HookBase):
    def __init__(self, optimizer, scheduler):
        self._optimizer = optimizer
        self._scheduler = scheduler

    def after_step(self):
        lr = self._optimizer.param_groups[0]["lr"]
        self.trainer.storage.put_scalar("lr", lr, smoothing_hint=False)
        self._scheduler.step()


class PeriodicWriter(HookBase):
    """Keeps the last printed line; stands in for CommonMetricPrinter/JSONWriter."""

    def __init__(self, period=20):
        self._period = period
        self.lines = []

    def _write(self):
        storage = self.trainer.storage
        items = ["{}: {:.4g}".format(k, v) for k, (v, _) in sorted(storage.latest().items())]
        self.lines.append("iter: {}  {}".format(storage.iter, "  ".join(items)))

    def after_step(self):
        if (self.trainer.iter + 1) % self._period == 0:
            self._write()

    def after_train(self):
        self._write()


class LossEvalHook(HookBase):
    def __init__(self, eval_period, model, data_loader, model_output="loss_proposal", model_name=""):
        self._model = model
        self._period = eval_period
        self._data_loader = data_loader
        self._model_output = model_output
        self._model_name = model_name

    def _do_loss_eval(self):
        meters = {}
        with inference_context(self._model), torch.no_grad():
            for inputs in self._data_loader:
                record_dict = self._get_loss(inputs, self._model)
                for loss_type, value in record_dict.items():
                    meters.setdefault(loss_type, AverageMeter(loss_type)).update(value, n=len(inputs))
        loss_acc_dict = {"val_" + k + self._model_name: m.avg for k, m in meters.items()}
        total = sum(v for k, v in loss_acc_dict.items() if k.startswith("val_loss"))
        self.trainer.storage.put_scalar("val_total_loss_val" + self._model_name, total)
        self.trainer.storage.put_scalars(**loss_acc_dict)

    def _get_loss(self, data, model):
        record_dict, _, _, _ = model(data, branch="val_loss", val_mode=True)
        return {
            k: v.detach().cpu().item() if isinstance(v, torch.Tensor) else float(v)
            for k, v in record_dict.items()
        }

    def after_step(self):
        next_iter = self.trainer.iter + 1
        is_final = next_iter == self.trainer.max_iter
        if is_final or (self._period > 0 and next_iter % self._period == 0):
            self._do_loss_eval()


class PseudoScoreHistogramHook(HookBase):
    """Collect the student's RoI confidences on unlabeled images and dump a histogram
    every `period` iterations (like the TensorBoard histogram of pseudo-label scores)."""

    def __init__(self, period, num_classes):
        self._period = period
        self._num_classes = num_classes
        self._score_buffer = []

    def after_step(self):
        predictions = getattr(self.trainer, "last_unsup_predictions", None)
        if predictions is None:
            return
        logits, _ = predictions
        scores = F.softmax(logits, dim=-1)[:, : self._num_classes].max(dim=-1).values
        self._score_buffer.append(scores)  # known-miss: TLK102
        if (self.trainer.iter + 1) % self._period == 0:
            self._flush()

    def _flush(self):
        if not self._score_buffer:
            return
        with torch.no_grad():
            all_scores = torch.cat(self._score_buffer)
            self.trainer.storage.put_histogram("pseudo/student_roi_scores", all_scores, bins=10)
        self._score_buffer = []


@contextmanager
def inference_context(model):
    training_mode = model.training
    model.eval()
    yield
    model.train(training_mode)
