"""A trimmed-down version of ``speechbrain.core``: the Brain class and Stage enum.

The recipe script subclasses :class:`Brain` and overrides ``compute_forward``,
``compute_objectives`` and the ``on_*`` hooks.
"""

from enum import Enum, auto
from types import SimpleNamespace

import torch


class Stage(Enum):
    """Simple enum to track stage of experiments."""

    TRAIN = auto()
    VALID = auto()
    TEST = auto()


class Brain:
    """Brain class abstracts away the details of data loops.

    Arguments
    ---------
    modules : dict of str:torch.nn.Module pairs
        These modules are passed to the optimizer by default if they have
        trainable parameters, and will have ``train()``/``eval()`` called on them.
    opt_class : callable
        Takes the parameters and returns an optimizer.
    hparams : dict
        Each key:value pair should consist of a string key and a hyperparameter
        that is used within the overridden methods.
    """

    def __init__(self, modules=None, opt_class=None, hparams=None, run_opts=None):
        run_opts = run_opts or {}
        self.modules = torch.nn.ModuleDict(modules)
        self.opt_class = opt_class
        self.hparams = SimpleNamespace(**(hparams or {}))
        self.device = run_opts.get("device", "cpu")
        self.grad_accumulation_factor = run_opts.get("grad_accumulation_factor", 1)
        self.max_grad_norm = run_opts.get("max_grad_norm", 5.0)
        self.debug_batches = run_opts.get("debug_batches", None)
        self.optimizer = None
        self.step = 0
        self.optimizer_step = 0
        self.avg_train_loss = 0.0
        self.nonfinite_count = 0

    # ----------------------------------------------------------------- to override
    def compute_forward(self, batch, stage):
        raise NotImplementedError

    def compute_objectives(self, predictions, batch, stage):
        raise NotImplementedError

    def on_stage_start(self, stage, epoch=None):
        pass

    def on_stage_end(self, stage, stage_loss, epoch=None):
        pass

    def on_fit_start(self):
        self.init_optimizers()

    def on_fit_batch_start(self, batch, should_step):
        pass

    def on_fit_batch_end(self, batch, outputs, loss, should_step):
        pass

    # ----------------------------------------------------------------- optimisation
    def init_optimizers(self):
        if self.opt_class is not None:
            self.optimizer = self.opt_class(self.modules.parameters())

    def zero_grad(self, set_to_none=False):
        if self.optimizer is not None:
            self.optimizer.zero_grad(set_to_none)

    def optimizers_step(self):
        if self.optimizer is None:
            return
        torch.nn.utils.clip_grad_norm_(self.modules.parameters(), self.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.optimizer_step += 1

    def check_loss_isfinite(self, loss):
        if not torch.isfinite(loss):
            self.nonfinite_count += 1

    def fit_batch(self, batch):
        """Fit one batch; returns the detached loss."""
        should_step = (self.step % self.grad_accumulation_factor) == 0
        self.on_fit_batch_start(batch, should_step)

        outputs = self.compute_forward(batch, Stage.TRAIN)
        loss = self.compute_objectives(outputs, batch, Stage.TRAIN)
        scaled_loss = loss / self.grad_accumulation_factor
        self.check_loss_isfinite(scaled_loss)
        scaled_loss.backward()

        if should_step:
            self.optimizers_step()

        self.on_fit_batch_end(batch, outputs, loss, should_step)
        return loss.detach().cpu()

    @torch.no_grad()
    def evaluate_batch(self, batch, stage):
        out = self.compute_forward(batch, stage=stage)
        loss = self.compute_objectives(out, batch, stage=stage)
        return loss.detach().cpu()

    def update_average(self, loss, avg_loss):
        """Update running average of the (already detached) loss."""
        if torch.isfinite(loss):
            avg_loss -= avg_loss / self.step
            avg_loss += float(loss) / self.step
        return avg_loss

    # ----------------------------------------------------------------- loops
    def _fit_train(self, train_set, epoch):
        self.on_stage_start(Stage.TRAIN, epoch)
        self.modules.train()
        self.zero_grad()
        self.nonfinite_count = 0
        for batch in train_set:
            self.step += 1
            loss = self.fit_batch(batch)
            self.avg_train_loss = self.update_average(loss, self.avg_train_loss)
            if self.debug_batches is not None and self.step == self.debug_batches:
                break
        self.zero_grad(set_to_none=True)
        self.on_stage_end(Stage.TRAIN, self.avg_train_loss, epoch)
        self.avg_train_loss = 0.0
        self.step = 0

    def _fit_valid(self, valid_set, epoch):
        if valid_set is None:
            return
        self.on_stage_start(Stage.VALID, epoch)
        self.modules.eval()
        avg_valid_loss = 0.0
        with torch.no_grad():
            for batch in valid_set:
                self.step += 1
                loss = self.evaluate_batch(batch, stage=Stage.VALID)
                avg_valid_loss = self.update_average(loss, avg_valid_loss)
        self.step = 0
        self.on_stage_end(Stage.VALID, avg_valid_loss, epoch)

    def fit(self, epoch_counter, train_set, valid_set=None):
        self.on_fit_start()
        for epoch in epoch_counter:
            self._fit_train(train_set, epoch)
            self._fit_valid(valid_set, epoch)
