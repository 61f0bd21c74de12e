"""
Base class for all the continual models.

`observe` is called at each training iteration: it computes the loss and updates the
parameters. `begin_task` / `end_task` are called before and after each task.
`meta_observe`, `meta_begin_task` and `meta_end_task` wrap them and update the counters.
"""
from argparse import Namespace
from typing import List

import torch
import torch.nn as nn
import torch.optim as optim

from utils.conf import get_device


class ContinualModel(nn.Module):
    NAME: str
    COMPATIBILITY: List[str]

    def __init__(self, backbone: nn.Module, loss, args: Namespace, transform=None) -> None:
        super(ContinualModel, self).__init__()
        self.net = backbone
        self.loss = loss
        self.args = args
        self.transform = transform
        self.device = get_device()
        self._current_task = 0
        self.task_iteration = 0

        if getattr(self.args, 'freeze_backbone', False):
            # linear-probe rehearsal: the (pre-trained) feature extractor stays fixed
            self.net._features.requires_grad_(False)
        self.opt = self.get_optimizer()

        if not self.NAME or not self.COMPATIBILITY:
            raise NotImplementedError('Please specify the name and the compatibility of the model.')

    @property
    def current_task(self) -> int:
        return self._current_task

    def get_parameters(self):
        return [p for p in self.net.parameters() if p.requires_grad]

    def get_optimizer(self) -> optim.Optimizer:
        return optim.SGD(self.get_parameters(), lr=self.args.lr,
                         weight_decay=self.args.optim_wd, momentum=self.args.optim_mom)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def begin_task(self, dataset) -> None:
        pass

    def end_task(self, dataset) -> None:
        pass

    def observe(self, inputs, labels, not_aug_inputs, epoch=None) -> float:
        raise NotImplementedError

    def meta_observe(self, *args, **kwargs) -> float:
        ret = self.observe(*args, **kwargs)
        self.task_iteration += 1
        return ret

    def meta_begin_task(self, dataset) -> None:
        self.task_iteration = 0
        self.begin_task(dataset)

    def meta_end_task(self, dataset) -> None:
        self.end_task(dataset)
        self._current_task += 1
