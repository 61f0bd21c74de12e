# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
"""EventStorage in the style of detectron2.utils.events (scalars only)."""
from collections import defaultdict

_CURRENT_STORAGE_STACK = []


def get_event_storage():
    assert len(_CURRENT_STORAGE_STACK), "get_event_storage() has to be called inside a 'with EventStorage(...)' context!"
    return _CURRENT_STORAGE_STACK[-1]


class HistoryBuffer:
    """Track a series of scalar values and provide median / global average."""

    def __init__(self, max_length=1000000):
        self._max_length = max_length
        self._data = []
        self._count = 0
        self._global_avg = 0.0

    def update(self, value, iteration=None):
        if iteration is None:
            iteration = self._count
        if len(self._data) == self._max_length:
            self._data.pop(0)
        self._data.append((value, iteration))
        self._count += 1
        self._global_avg += (value - self._global_avg) / self._count

    def latest(self):
        return self._data[-1][0]

    def avg(self, window_size):
        window = [x[0] for x in self._data[-window_size:]]
        return sum(window) / max(len(window), 1)

    def global_avg(self):
        return self._global_avg

    def values(self):
        return self._data


class EventStorage:
    """User-facing class that provides metric storage functionalities."""

    def __init__(self, start_iter=0):
        self._history = defaultdict(HistoryBuffer)
        self._smoothing_hints = {}
        self._latest_scalars = {}
        self._histograms = []
        self._iter = start_iter

    def put_scalar(self, name, value, smoothing_hint=True):
        history = self._history[name]
        value = float(value)
        history.update(value, self._iter)
        self._latest_scalars[name] = (value, self._iter)
        existing_hint = self._smoothing_hints.get(name)
        if existing_hint is not None:
            assert existing_hint == smoothing_hint
        else:
            self._smoothing_hints[name] = smoothing_hint

    def put_scalars(self, *, smoothing_hint=True, **kwargs):
        for k, v in kwargs.items():
            self.put_scalar(k, v, smoothing_hint=smoothing_hint)

    def put_histogram(self, hist_name, hist_tensor, bins=10):
        ht_min, ht_max = hist_tensor.min().item(), hist_tensor.max().item()
        hist_counts = hist_tensor.histc(bins=bins)
        self._histograms.append(
            dict(tag=hist_name, min=ht_min, max=ht_max, counts=hist_counts.tolist(), iter=self._iter)
        )

    def history(self, name):
        ret = self._history.get(name, None)
        if ret is None:
            raise KeyError("No history metric available for {}!".format(name))
        return ret

    def histories(self):
        return self._history

    def latest(self):
        return self._latest_scalars

    def step(self):
        self._iter += 1

    @property
    def iter(self):
        return self._iter

    @iter.setter
    def iter(self, val):
        self._iter = int(val)

    def __enter__(self):
        _CURRENT_STORAGE_STACK.append(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        assert _CURRENT_STORAGE_STACK[-1] == self
        _CURRENT_STORAGE_STACK.pop()
