"""Utils package."""

from tianshou_lite.utils.logger.base import BaseLogger, LazyLogger, MemoryLogger
from tianshou_lite.utils.statistics import MovAvg, RunningMeanStd

__all__ = ["MovAvg", "RunningMeanStd", "BaseLogger", "LazyLogger", "MemoryLogger"]
