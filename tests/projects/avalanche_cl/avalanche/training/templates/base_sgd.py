from typing import Iterable, Sequence, Optional, Union, List

import torch
from torch import Tensor
from torch.nn import Module, CrossEntropyLoss
from torch.optim import Optimizer
from torch.utils.data import DataLoader

from avalanche.training.plugins.strategy_plugin import trigger_plugins
from avalanche.training.plugins.evaluation import EvaluationPlugin, default_evaluator


class Clock:
    """Counter for strategy events (upstream: avalanche.training.plugins.clock.Clock)."""

    def __init__(self):
        self.train_iterations = 0
        self.train_exp_counter = 0
        self.train_exp_epochs = 0
        self.train_epoch_iterations = 0

    def before_training_exp(self, strategy, **kwargs):
        self.train_exp_epochs = 0

    def before_training_epoch(self, strategy, **kwargs):
        self.train_epoch_iterations = 0

    def after_training_iteration(self, strategy, **kwargs):
        self.train_epoch_iterations += 1
        self.train_iterations += 1

    def after_training_epoch(self, strategy, **kwargs):
        self.train_exp_epochs += 1

    def after_training_exp(self, strategy, **kwargs):
        self.train_exp_counter += 1


class BaseSGDTemplate:
    """Base SGD class for continual learning skeletons."""

    def __init__(
        self,
        model: Module,
        optimizer: Optimizer,
        criterion=CrossEntropyLoss(),
        train_mb_size: int = 1,
        train_epochs: int = 1,
        eval_mb_size: Optional[int] = 1,
        device="cpu",
        plugins: Optional[List] = None,
        evaluator=default_evaluator,
        eval_every=-1,
    ):
        self.model = model
        self.optimizer = optimizer
        self._criterion = criterion
        self.train_epochs: int = train_epochs
        self.train_mb_size: int = train_mb_size
        self.eval_mb_size: int = train_mb_size if eval_mb_size is None else eval_mb_size
        self.device = torch.device(device)
        self.plugins = [] if plugins is None else list(plugins)

        self.retain_graph: bool = False
        """ Retain graph when calling loss.backward(). """

        if evaluator is None:
            evaluator = EvaluationPlugin()
        elif callable(evaluator):
            evaluator = evaluator()
        self.plugins.append(evaluator)
        self.evaluator = evaluator

        self.clock = Clock()
        self.plugins.append(self.clock)
        self.eval_every = eval_every

        self.experience = None
        self.dataloader = None
        self.mbatch = None
        self.mb_output = None
        self.loss: Tensor = self._make_empty_loss()
        self._stop_training = False
        self.is_training = False

    # ------------------------------------------------------------------ train
    def train(self, experiences, eval_streams=None, **kwargs):
        self.is_training = True
        self._stop_training = False
        self.model.train()
        self.model.to(self.device)

        if not isinstance(experiences, Sequence):
            experiences = [experiences]

        trigger_plugins(self, "before_training", **kwargs)
        for self.experience in experiences:
            self._before_training_exp(**kwargs)
            self._train_exp(self.experience, eval_streams, **kwargs)
            self._after_training_exp(**kwargs)
        trigger_plugins(self, "after_training", **kwargs)
        self._train_cleanup()
        return self.evaluator.get_last_metrics()

    @torch.no_grad()
    def eval(self, exp_list, **kwargs):
        self.is_training = False
        self.model.eval()
        if not isinstance(exp_list, Sequence):
            exp_list = [exp_list]
        trigger_plugins(self, "before_eval", **kwargs)
        for self.experience in exp_list:
            self.dataloader = self.make_eval_dataloader()
            trigger_plugins(self, "before_eval_exp", **kwargs)
            self.eval_epoch(**kwargs)
            trigger_plugins(self, "after_eval_exp", **kwargs)
        trigger_plugins(self, "after_eval", **kwargs)
        self._eval_cleanup()
        return self.evaluator.get_last_metrics()

    def _before_training_exp(self, **kwargs):
        self.dataloader = self.make_train_dataloader(**kwargs)
        self.model_adaptation()
        trigger_plugins(self, "before_training_exp", **kwargs)

    def _after_training_exp(self, **kwargs):
        trigger_plugins(self, "after_training_exp", **kwargs)

    def _train_exp(self, experience, eval_streams=None, **kwargs):
        for _ in range(self.train_epochs):
            self._before_training_epoch(**kwargs)
            if self._stop_training:  # Early stopping
                self._stop_training = False
                break
            self.training_epoch(**kwargs)
            self._after_training_epoch(**kwargs)

    def make_train_dataloader(self, shuffle=True, **kwargs):
        g = torch.Generator().manual_seed(self.clock.train_exp_counter)
        return DataLoader(self.experience.dataset, batch_size=self.train_mb_size,
                          shuffle=shuffle, drop_last=True, generator=g)

    def make_eval_dataloader(self, **kwargs):
        return DataLoader(self.experience.dataset, batch_size=self.eval_mb_size, shuffle=False)

    def model_adaptation(self, model=None):
        return self.model

    def stop_training(self):
        self._stop_training = True

    # ------------------------------------------------------------- SGDUpdate
    def training_epoch(self, **kwargs):
        """Training epoch."""
        for self.mbatch in self.dataloader:
            if self._stop_training:
                break

            self._unpack_minibatch()
            self._before_training_iteration(**kwargs)

            self.optimizer.zero_grad()
            self.loss = self._make_empty_loss()

            # Forward
            self._before_forward(**kwargs)
            self.mb_output = self.forward()
            self._after_forward(**kwargs)

            # Loss & Backward
            self.loss += self.criterion()

            self._before_backward(**kwargs)
            self.backward()
            self._after_backward(**kwargs)

            # Optimization step
            self._before_update(**kwargs)
            self.optimizer_step()
            self._after_update(**kwargs)

            self._after_training_iteration(**kwargs)

    def backward(self):
        """Run the backward pass."""
        self.loss.backward(retain_graph=self.retain_graph)

    def optimizer_step(self):
        """Execute the optimizer step (weights update)."""
        self.optimizer.step()

    def eval_epoch(self, **kwargs):
        """Evaluation loop over the current `self.dataloader`."""
        for self.mbatch in self.dataloader:
            self._unpack_minibatch()
            trigger_plugins(self, "before_eval_iteration", **kwargs)
            trigger_plugins(self, "before_eval_forward", **kwargs)
            self.mb_output = self.forward()
            trigger_plugins(self, "after_eval_forward", **kwargs)
            self.loss = self.criterion()
            trigger_plugins(self, "after_eval_iteration", **kwargs)

    def _train_cleanup(self):
        self.dataloader = None
        self.mbatch = None
        self.mb_output = None
        self.loss = self._make_empty_loss()

    def _eval_cleanup(self):
        self.dataloader = None
        self.mbatch = None
        self.mb_output = None
        self.loss = self._make_empty_loss()

    def _unpack_minibatch(self):
        self.mbatch = [t.to(self.device) if torch.is_tensor(t) else t for t in self.mbatch]

    def _make_empty_loss(self) -> Tensor:
        return torch.zeros(1, device=self.device)

    # ------------------------------------------------------------------ hooks
    def _before_training_epoch(self, **kwargs):
        trigger_plugins(self, "before_training_epoch", **kwargs)

    def _after_training_epoch(self, **kwargs):
        trigger_plugins(self, "after_training_epoch", **kwargs)

    def _before_training_iteration(self, **kwargs):
        trigger_plugins(self, "before_training_iteration", **kwargs)

    def _before_forward(self, **kwargs):
        trigger_plugins(self, "before_forward", **kwargs)

    def _after_forward(self, **kwargs):
        trigger_plugins(self, "after_forward", **kwargs)

    def _before_backward(self, **kwargs):
        trigger_plugins(self, "before_backward", **kwargs)

    def _after_backward(self, **kwargs):
        trigger_plugins(self, "after_backward", **kwargs)

    def _after_training_iteration(self, **kwargs):
        trigger_plugins(self, "after_training_iteration", **kwargs)

    def _before_update(self, **kwargs):
        trigger_plugins(self, "before_update", **kwargs)

    def _after_update(self, **kwargs):
        trigger_plugins(self, "after_update", **kwargs)
