"""Project-specific hooks."""
from typing import Optional

from ..registry import HOOKS
from .hooks import Hook


@HOOKS.register_module()
class TrainDiceHook(Hook):
    """Accumulates the sample-weighted training Dice over the whole run and
    publishes it at the end of training."""

    priority = 'LOW'

    def __init__(self, key: str = 'dice'):
        self.key = key
        self.dice_sum = 0.0
        self.num_samples = 0

    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs: Optional[dict] = None) -> None:
        if outputs is None or self.key not in outputs:
            return
        batch_size = data_batch['inputs'].shape[0]
        self.dice_sum += outputs[self.key] * batch_size  # expect: TLK101
        self.num_samples += batch_size

    def after_train_epoch(self, runner) -> None:
        runner.message_hub.update_info('train/mean_dice',
                                       float(self.dice_sum) / max(self.num_samples, 1))
