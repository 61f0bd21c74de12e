"""Default hooks: runtime info, logging and EMA."""
import copy
from typing import Optional

import torch

from ..registry import HOOKS


class Hook:
    """Base hook class. All hooks should inherit from it."""

    priority = 'NORMAL'

    def before_train(self, runner) -> None:
        pass

    def after_train(self, runner) -> None:
        pass

    def before_train_epoch(self, runner) -> None:
        pass

    def after_train_epoch(self, runner) -> None:
        pass

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        pass

    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs: Optional[dict] = None) -> None:
        pass

    def before_val_epoch(self, runner) -> None:
        pass

    def after_val_epoch(self, runner, metrics: Optional[dict] = None) -> None:
        pass

    def every_n_train_iters(self, runner, n: int) -> bool:
        return (runner.iter + 1) % n == 0 if n > 0 else False


@HOOKS.register_module()
class RuntimeInfoHook(Hook):
    """Updates runtime information (iter, lr, logged outputs) in the message hub."""

    priority = 'VERY_HIGH'

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        runner.message_hub.update_info('iter', runner.iter)
        lr_dict = runner.optim_wrapper.get_lr()
        for name, lr in lr_dict.items():
            runner.message_hub.update_scalar(f'train/{name}', lr[0])

    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs: Optional[dict] = None) -> None:
        if outputs is not None:
            for key, value in outputs.items():
                runner.message_hub.update_scalar(f'train/{key}', value)

    def after_val_epoch(self, runner, metrics: Optional[dict] = None) -> None:
        if metrics is not None:
            for key, value in metrics.items():
                runner.message_hub.update_scalar(f'val/{key}', value)


@HOOKS.register_module()
class LoggerHook(Hook):
    """Formats the smoothed scalars every ``interval`` iterations."""

    priority = 'BELOW_NORMAL'

    def __init__(self, interval: int = 10, window_size: int = 10):
        self.interval = interval
        self.window_size = window_size
        self.records = []

    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs: Optional[dict] = None) -> None:
        if not self.every_n_train_iters(runner, self.interval):
            return
        tag = {}
        for key, buffer in runner.message_hub.log_scalars.items():
            if key.startswith('train/'):
                tag[key[len('train/'):]] = buffer.mean(self.window_size)
        self.records.append({'iter': runner.iter + 1, **tag})
        runner.logger_lines.append(
            f"Iter(train) [{runner.iter + 1}/{runner.max_iters}] " +
            '  '.join(f'{k}: {v:.4f}' for k, v in tag.items()))


@HOOKS.register_module()
class EMAHook(Hook):
    """Keeps an exponential moving average copy of the model weights."""

    priority = 'NORMAL'

    def __init__(self, momentum: float = 0.0002, begin_iter: int = 0):
        self.momentum = momentum
        self.begin_iter = begin_iter

    def before_train(self, runner) -> None:
        self.src_model = runner.model
        self.ema_model = copy.deepcopy(runner.model)
        for p in self.ema_model.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs: Optional[dict] = None) -> None:
        src = dict(self.src_model.named_parameters())
        for name, p_avg in self.ema_model.named_parameters():
            if runner.iter < self.begin_iter:
                p_avg.data.copy_(src[name].data)
            else:
                p_avg.data.mul_(1 - self.momentum).add_(src[name].data, alpha=self.momentum)
