"""Minimal tabular logger (replaces rlpyt's logger)."""
from collections import defaultdict


class TabularLogger:
    def __init__(self):
        self.rows = []
        self._current = defaultdict(list)

    def record(self, key, values):
        self._current[key].extend(values)

    def dump(self, itr):
        row = {"itr": itr}
        for k, v in self._current.items():
            row[k] = sum(v) / len(v) if len(v) else float("nan")
        self.rows.append(row)
        self._current = defaultdict(list)
        return row
