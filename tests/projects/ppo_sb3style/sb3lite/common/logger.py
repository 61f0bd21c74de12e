from collections import defaultdict
from typing import Any, Optional


class Logger:
    """
    The logger class: accumulates key/values for the current logging period and
    writes them out (here: into ``self.records``) on ``dump``.
    """

    def __init__(self):
        self.name_to_value = defaultdict(float)  # values this iteration
        self.name_to_count = defaultdict(int)
        self.name_to_excluded = {}
        self.records = []

    def record(self, key: str, value: Any, exclude: Optional[str] = None) -> None:
        """
        Log a value of some diagnostic. If called many times, last value will be used.
        """
        self.name_to_value[key] = value
        self.name_to_excluded[key] = exclude

    def record_mean(self, key: str, value: Any, exclude: Optional[str] = None) -> None:
        """
        The same as record(), but if called many times, values averaged.
        """
        if value is None:
            return
        old_val, count = self.name_to_value[key], self.name_to_count[key]
        self.name_to_value[key] = old_val * count / (count + 1) + value / (count + 1)  # known-miss: TLK101
        self.name_to_count[key] = count + 1
        self.name_to_excluded[key] = exclude

    def dump(self, step: int = 0) -> None:
        """
        Write all of the diagnostics from the current period.
        """
        self.records.append({"step": step, **{k: float(v) for k, v in self.name_to_value.items()}})
        self.name_to_value.clear()
        self.name_to_count.clear()
        self.name_to_excluded.clear()
