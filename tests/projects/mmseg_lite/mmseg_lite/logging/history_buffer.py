"""Unified storage format for the scalars logged during training."""
from typing import Optional, Sequence


class HistoryBuffer:
    """Records the history of a logged scalar and its counts, with a bounded window.

    Args:
        log_history (Sequence): History logs. Defaults to [].
        count_history (Sequence): Counts of history logs. Defaults to [].
        max_length (int): The max length of history logs. Defaults to 1000000.
    """

    def __init__(self,
                 log_history: Sequence = (),
                 count_history: Sequence = (),
                 max_length: int = 1000000):
        self.max_length = max_length
        assert len(log_history) == len(count_history)
        self._log_history = list(log_history)[-max_length:]
        self._count_history = list(count_history)[-max_length:]

    def update(self, log_val, count: int = 1) -> None:
        """Update the log history; the oldest element is dropped once the buffer is full."""
        self._log_history.append(log_val)  # known-miss: TLK102
        self._count_history.append(count)
        if len(self._log_history) > self.max_length:
            self._log_history = self._log_history[-self.max_length:]
            self._count_history = self._count_history[-self.max_length:]

    @property
    def data(self):
        return self._log_history, self._count_history

    def mean(self, window_size: Optional[int] = None) -> float:
        logs = self._log_history[-window_size:] if window_size else self._log_history
        counts = self._count_history[-window_size:] if window_size else self._count_history
        return float(sum(logs)) / max(sum(counts), 1)

    def current(self) -> float:
        return float(self._log_history[-1])

    def __len__(self):
        return len(self._log_history)
