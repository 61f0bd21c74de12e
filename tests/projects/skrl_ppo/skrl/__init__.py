"""Minimal skrl-like package (torch only): agents, memories, models, preprocessors, trainers."""
import logging
import sys

import torch

__all__ = ["__version__", "logger", "config"]
__version__ = "2.0.0.dev0"


class _Formatter(logging.Formatter):
    _format = "[%(name)s:%(levelname)s] %(message)s"

    def format(self, record):
        return logging.Formatter(self._format).format(record)


_handler = logging.StreamHandler(sys.stderr)
_handler.setLevel(logging.WARNING)
_handler.setFormatter(_Formatter())

logger = logging.getLogger("skrl")
logger.setLevel(logging.WARNING)
logger.addHandler(_handler)


class _Config(object):
    def __init__(self) -> None:
        class PyTorch(object):
            def __init__(self) -> None:
                self._device = None
                self.is_distributed = False
                self.world_size = 1
                self.rank = 0

            def parse_device(self, device=None) -> torch.device:
                if isinstance(device, torch.device):
                    return device
                if isinstance(device, str):
                    return torch.device(device)
                return torch.device("cpu")

            @property
            def device(self) -> torch.device:
                self._device = self.parse_device(self._device)
                return self._device

        self.torch = PyTorch()


config = _Config()
