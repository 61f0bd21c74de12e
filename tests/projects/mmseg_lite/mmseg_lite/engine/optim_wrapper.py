"""Optimizer wrapper providing a unified update interface."""
from contextlib import nullcontext

import torch

from ..registry import OPTIM_WRAPPERS


@OPTIM_WRAPPERS.register_module()
class OptimWrapper:
    """Wraps an optimizer: backward, gradient clipping, step and zero_grad.

    Args:
        optimizer (torch.optim.Optimizer): Optimizer used to update model parameters.
        accumulative_counts (int): Number of iterations to accumulate gradients.
        clip_grad (dict, optional): Arguments of ``clip_grad_norm_``.
    """

    def __init__(self, optimizer, accumulative_counts: int = 1, clip_grad=None):
        self.optimizer = optimizer
        self._accumulative_counts = accumulative_counts
        self.clip_grad_kwargs = clip_grad
        self._inner_count = 0

    def update_params(self, loss: torch.Tensor) -> None:
        loss = self.scale_loss(loss)
        self.backward(loss)
        if self.should_update():
            self.step()
            self.zero_grad()

    def backward(self, loss: torch.Tensor, **kwargs) -> None:
        loss.backward(**kwargs)
        self._inner_count += 1

    def zero_grad(self, **kwargs) -> None:
        self.optimizer.zero_grad(**kwargs)

    def step(self, **kwargs) -> None:
        if self.clip_grad_kwargs:
            params = [p for g in self.optimizer.param_groups for p in g['params']]
            torch.nn.utils.clip_grad_norm_(params, **self.clip_grad_kwargs)
        self.optimizer.step(**kwargs)

    def scale_loss(self, loss: torch.Tensor) -> torch.Tensor:
        if self._accumulative_counts == 1:
            return loss
        return loss / self._accumulative_counts

    def should_update(self) -> bool:
        return self._inner_count % self._accumulative_counts == 0

    def optim_context(self, model):
        return nullcontext()

    def get_lr(self):
        return {'lr': [group['lr'] for group in self.optimizer.param_groups]}
