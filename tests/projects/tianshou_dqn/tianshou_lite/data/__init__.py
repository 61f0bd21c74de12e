"""Data package."""
# isort:skip_file

from tianshou_lite.data.batch import Batch
from tianshou_lite.data.utils.converter import to_host, to_torch, to_torch_as
from tianshou_lite.data.buffer import ReplayBuffer
from tianshou_lite.data.collector import Collector

__all__ = ["Batch", "to_host", "to_torch", "to_torch_as", "ReplayBuffer", "Collector"]
