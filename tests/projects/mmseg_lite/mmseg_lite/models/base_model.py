"""Base model: data preprocessing, forward modes and the default train/val steps."""
from collections import OrderedDict
from typing import Dict, Tuple

import torch
from torch import nn


class SegDataPreProcessor(nn.Module):
    """Normalises images and moves the batch to the model device."""

    def __init__(self, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25)):
        super().__init__()
        self.register_buffer('mean', torch.tensor(mean).view(-1, 1, 1), False)
        self.register_buffer('std', torch.tensor(std).view(-1, 1, 1), False)

    def forward(self, data: dict, training: bool = False) -> dict:
        inputs = (data['inputs'] - self.mean) / self.std
        return dict(inputs=inputs, data_samples=data['data_samples'])


class BaseModel(nn.Module):
    """Base class for all algorithmic models.

    Subclasses implement ``forward(inputs, data_samples, mode)`` with the modes
    ``'loss'`` (a dict of losses and metrics) and ``'predict'``.
    """

    def __init__(self, data_preprocessor=None):
        super().__init__()
        self.data_preprocessor = data_preprocessor or SegDataPreProcessor()

    def train_step(self, data, optim_wrapper) -> Dict[str, torch.Tensor]:
        """Preprocess, forward in ``'loss'`` mode, parse the losses and update the params."""
        with optim_wrapper.optim_context(self):
            data = self.data_preprocessor(data, True)
            losses = self._run_forward(data, mode='loss')
        parsed_losses, log_vars = self.parse_losses(losses)
        optim_wrapper.update_params(parsed_losses)
        return log_vars

    def val_step(self, data) -> list:
        data = self.data_preprocessor(data, False)
        return self._run_forward(data, mode='predict')

    def parse_losses(self, losses: Dict[str, torch.Tensor]
                     ) -> Tuple[torch.Tensor, Dict[str, torch.Tensor]]:
        """Sums the entries whose key contains ``'loss'``; everything is returned for logging."""
        log_vars = []
        for loss_name, loss_value in losses.items():
            if isinstance(loss_value, torch.Tensor):
                log_vars.append([loss_name, loss_value.mean()])
            else:
                log_vars.append([loss_name, sum(_loss.mean() for _loss in loss_value)])
        loss = sum(value for key, value in log_vars if 'loss' in key)
        log_vars.insert(0, ['loss', loss])
        return loss, OrderedDict(log_vars)

    def _run_forward(self, data: dict, mode: str):
        return self(**data, mode=mode)
