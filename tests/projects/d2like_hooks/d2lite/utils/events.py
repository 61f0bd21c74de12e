import datetime
import json
import logging
import statistics
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Optional

import torch

__all__ = [
    "get_event_storage",
    "has_event_storage",
    "JSONWriter",
    "CommonMetricPrinter",
    "EventStorage",
    "HistoryBuffer",
]

_CURRENT_STORAGE_STACK = []


def get_event_storage():
    """
    Returns:
        The :class:`EventStorage` object that's currently being used.
    """
    assert len(
        _CURRENT_STORAGE_STACK
    ), "get_event_storage() has to be called inside a 'with EventStorage(...)' context!"
    return _CURRENT_STORAGE_STACK[-1]


def has_event_storage():
    return len(_CURRENT_STORAGE_STACK) > 0


class HistoryBuffer:
    """Track a series of scalar values (after fvcore.common.history_buffer)."""

    def __init__(self, max_length: int = 1000000):
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

    def median(self, window_size: int):
        return statistics.median([x[0] for x in self._data[-window_size:]])

    def avg(self, window_size: int):
        return sum(x[0] for x in self._data[-window_size:]) / len(self._data[-window_size:])

    def global_avg(self):
        return self._global_avg

    def values(self):
        return self._data


class EventWriter:
    def write(self):
        raise NotImplementedError

    def close(self):
        pass


class JSONWriter(EventWriter):
    """Write scalars to a json stream (an in-memory list of lines here)."""

    def __init__(self, lines=None, window_size=20):
        self.lines = [] if lines is None else lines
        self._window_size = window_size
        self._last_write = -1

    def write(self):
        storage = get_event_storage()
        to_save = defaultdict(dict)
        for k, (v, iter) in storage.latest_with_smoothing_hint(self._window_size).items():
            if iter <= self._last_write:
                continue
            to_save[iter][k] = float(v)
        if len(to_save):
            self._last_write = max(to_save.keys())
        for itr, scalars_per_iter in to_save.items():
            scalars_per_iter["iteration"] = itr
            self.lines.append(json.dumps(scalars_per_iter, sort_keys=True))


class CommonMetricPrinter(EventWriter):
    def __init__(self, max_iter: Optional[int] = None, window_size: int = 20):
        self.logger = logging.getLogger("d2lite.utils.events")
        self._max_iter = max_iter
        self._window_size = window_size
        self._last_write = None

    def write(self):
        storage = get_event_storage()
        iteration = storage.iter
        if iteration == self._max_iter:
            return
        try:
            lr = "{:.5g}".format(storage.history("lr").latest())
        except KeyError:
            lr = "N/A"
        losses = "  ".join(
            "{}: {:.4g}".format(k, v.median(self._window_size))
            for k, v in storage.histories().items()
            if "loss" in k
        )
        self.logger.info(
            " {eta}iter: {iter}  {losses}  lr: {lr}".format(
                eta="", iter=iteration, losses=losses, lr=lr)
        )
        self._last_write = (iteration, time.perf_counter())


class EventStorage:
    """
    The user-facing class that provides metric storage functionalities.
    """

    def __init__(self, start_iter=0):
        self._history = defaultdict(HistoryBuffer)
        self._smoothing_hints = {}
        self._latest_scalars = {}
        self._iter = start_iter
        self._current_prefix = ""
        self._vis_data = []
        self._histograms = []

    def put_image(self, img_name, img_tensor):
        self._vis_data.append((img_name, img_tensor, self._iter))

    def put_scalar(self, name, value, smoothing_hint=True, cur_iter=None):
        """
        Add a scalar `value` to the `HistoryBuffer` associated with `name`.
        """
        name = self._current_prefix + name
        cur_iter = self._iter if cur_iter is None else cur_iter
        history = self._history[name]
        history.update(value, cur_iter)  # known-miss: TLK102
        self._latest_scalars[name] = (history.latest(), cur_iter)

        existing_hint = self._smoothing_hints.get(name)
        if existing_hint is not None:
            assert (
                existing_hint == smoothing_hint
            ), "Scalar {} was put with a different smoothing_hint!".format(name)
        else:
            self._smoothing_hints[name] = smoothing_hint

    def put_scalars(self, *, smoothing_hint=True, cur_iter=None, **kwargs):
        for k, v in kwargs.items():
            self.put_scalar(k, v, smoothing_hint=smoothing_hint, cur_iter=cur_iter)

    def history(self, name):
        ret = self._history.get(name, None)
        if ret is None:
            raise KeyError("No history metric available for {}!".format(name))
        return ret

    def histories(self):
        return self._history

    def latest(self):
        return self._latest_scalars

    def latest_with_smoothing_hint(self, window_size=20):
        result = {}
        for k, (v, itr) in self._latest_scalars.items():
            result[k] = (
                self._history[k].median(window_size) if self._smoothing_hints[k] else v,
                itr,
            )
        return result

    def smoothing_hints(self):
        return self._smoothing_hints

    def step(self):
        self._iter += 1

    @property
    def iter(self):
        return self._iter

    @iter.setter
    def iter(self, val):
        self._iter = int(val)

    @property
    def iteration(self):
        return self._iter

    def __enter__(self):
        _CURRENT_STORAGE_STACK.append(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        assert _CURRENT_STORAGE_STACK[-1] == self
        _CURRENT_STORAGE_STACK.pop()

    @contextmanager
    def name_scope(self, name):
        old_prefix = self._current_prefix
        self._current_prefix = name.rstrip("/") + "/"
        yield
        self._current_prefix = old_prefix

    def clear_images(self):
        self._vis_data = []

    def clear_histograms(self):
        self._histograms = []
