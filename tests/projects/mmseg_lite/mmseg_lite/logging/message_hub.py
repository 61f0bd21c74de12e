"""Message hub: collects the logged scalars and runtime information of a run."""
from collections import OrderedDict

import torch

from .history_buffer import HistoryBuffer


class MessageHub:
    """Stores ``HistoryBuffer`` s for scalars and plain runtime info.

    Scalars are kept as given so that a tensor logged every iteration does not
    force a device synchronisation; they are converted when they are read.
    """

    def __init__(self, name: str):
        self.instance_name = name
        self._log_scalars = OrderedDict()
        self._runtime_info = OrderedDict()

    def update_scalar(self, key: str, value, count: int = 1) -> None:
        checked_value = self._get_valid_value(value)
        assert isinstance(count, int), f'count must be int, got {type(count)}'
        buffer = self._log_scalars.setdefault(key, HistoryBuffer())
        buffer.update(checked_value, count)

    def update_scalars(self, log_dict: dict) -> None:
        for key, value in log_dict.items():
            self.update_scalar(key, value)

    def update_info(self, key: str, value) -> None:
        self._runtime_info[key] = value

    def get_scalar(self, key: str) -> HistoryBuffer:
        return self._log_scalars[key]

    def get_info(self, key: str, default=None):
        return self._runtime_info.get(key, default)

    @property
    def log_scalars(self):
        return self._log_scalars

    @staticmethod
    def _get_valid_value(value):
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, torch.Tensor):
            assert value.numel() == 1, 'only scalars can be logged'
            return value
        raise TypeError(f'unsupported value type {type(value)}')
