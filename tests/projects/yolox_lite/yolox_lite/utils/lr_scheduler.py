# Modelled on yolox/utils/lr_scheduler.py (yoloxwarmcos only)
import math
from functools import partial


class LRScheduler:
    def __init__(self, name, lr, iters_per_epoch, total_epochs, **kwargs):
        self.lr = lr
        self.iters_per_epoch = iters_per_epoch
        self.total_epochs = total_epochs
        self.total_iters = iters_per_epoch * total_epochs
        self.__dict__.update(kwargs)
        self.lr_func = self._get_lr_func(name)

    def update_lr(self, iters):
        return self.lr_func(iters)

    def _get_lr_func(self, name):
        if name == "yoloxwarmcos":
            warmup_total_iters = self.iters_per_epoch * self.warmup_epochs
            no_aug_iters = self.iters_per_epoch * self.no_aug_epochs
            warmup_lr_start = getattr(self, "warmup_lr_start", 0)
            min_lr_ratio = getattr(self, "min_lr_ratio", 0.2)
            return partial(
                yolox_warm_cos_lr, self.lr, min_lr_ratio * self.lr, self.total_iters,
                warmup_total_iters, warmup_lr_start, no_aug_iters,
            )
        raise ValueError("Scheduler version {} not supported.".format(name))


def yolox_warm_cos_lr(lr, min_lr, total_iters, warmup_total_iters, warmup_lr_start,
                      no_aug_iter, iters):
    """Cosine learning rate with warm up."""
    if iters <= warmup_total_iters:
        lr = (lr - warmup_lr_start) * pow(iters / float(max(warmup_total_iters, 1)), 2) + warmup_lr_start
    elif iters >= total_iters - no_aug_iter:
        lr = min_lr
    else:
        lr = min_lr + 0.5 * (lr - min_lr) * (
            1.0 + math.cos(math.pi * (iters - warmup_total_iters)
                           / max(total_iters - warmup_total_iters - no_aug_iter, 1))
        )
    return lr
