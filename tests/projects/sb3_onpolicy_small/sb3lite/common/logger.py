import sys
from collections import defaultdict
from typing import Any, TextIO

import numpy as np
import torch as th


class KVWriter:
    """
    Key Value writer
    """

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class HumanOutputFormat(KVWriter):
    """A human-readable output format producing ASCII tables of key-value pairs."""

    def __init__(self, file: TextIO, max_length: int = 36):
        self.file = file
        self.max_length = max_length

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        key2str = {}
        for key, value in sorted(key_values.items()):
            if key_excluded.get(key) is not None and "stdout" in key_excluded[key]:
                continue
            if isinstance(value, th.Tensor):
                value = value.item()
            if isinstance(value, float):
                value_str = f"{value:<8.3g}"
            else:
                value_str = str(value)
            key2str[key[: self.max_length]] = value_str[: self.max_length]
        if not key2str:
            return
        width = max(len(k) for k in key2str) + max(len(v) for v in key2str.values()) + 7
        lines = ["-" * width]
        for key, value in key2str.items():
            lines.append(f"| {key:<{width - 7 - len(value)}} | {value} |")
        lines.append("-" * width)
        self.file.write("\n".join(lines) + "\n")
        self.file.flush()

    def close(self) -> None:
        pass


class HistoryOutputFormat(KVWriter):
    """
    Keeps the whole scalar history in memory, like a TensorBoard event file
    that is plotted at the end of training. Values are kept as recorded.
    """

    def __init__(self):
        self.scalars: dict[str, list[tuple[int, Any]]] = defaultdict(list)

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        for key, value in key_values.items():
            if key_excluded.get(key) is not None and "history" in key_excluded[key]:
                continue
            if isinstance(value, (int, float, np.floating, np.integer, th.Tensor)):
                self.scalars[key].append((step, value))

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {key: np.array([float(v) for _, v in rows]) for key, rows in self.scalars.items()}

    def close(self) -> None:
        pass


class Logger:
    """
    The logger class.

    :param folder: the logging location
    :param output_formats: the list of output formats
    """

    def __init__(self, folder: str | None, output_formats: list[KVWriter]):
        self.name_to_value: dict[str, Any] = defaultdict(float)  # values this iteration
        self.name_to_count: dict[str, int] = defaultdict(int)
        self.name_to_excluded: dict[str, tuple[str, ...]] = {}
        self.dir = folder
        self.output_formats = output_formats

    @staticmethod
    def to_tuple(string_or_tuple: str | tuple[str, ...] | None) -> tuple[str, ...]:
        """
        Helper function to convert str to tuple of str.
        """
        if string_or_tuple is None:
            return ("",)
        if isinstance(string_or_tuple, tuple):
            return string_or_tuple
        return (string_or_tuple,)

    def record(self, key: str, value: Any, exclude: str | tuple[str, ...] | None = None) -> None:
        """
        Log a value of some diagnostic
        Call this once for each diagnostic quantity, each iteration
        If called many times, last value will be used.
        """
        self.name_to_value[key] = value
        self.name_to_excluded[key] = self.to_tuple(exclude)

    def record_mean(self, key: str, value: float | None, exclude: str | tuple[str, ...] | None = None) -> None:
        """
        The same as record(), but if called many times, values averaged.
        """
        if value is None:
            return
        old_val, count = self.name_to_value[key], self.name_to_count[key]
        self.name_to_value[key] = old_val * count / (count + 1) + value / (count + 1)
        self.name_to_count[key] = count + 1
        self.name_to_excluded[key] = self.to_tuple(exclude)

    def dump(self, step: int = 0) -> None:
        """
        Write all of the diagnostics from the current iteration
        """
        for _format in self.output_formats:
            _format.write(self.name_to_value, self.name_to_excluded, step)

        self.name_to_value.clear()
        self.name_to_count.clear()
        self.name_to_excluded.clear()

    def get_dir(self) -> str | None:
        return self.dir

    def close(self) -> None:
        for _format in self.output_formats:
            _format.close()


def configure(folder: str | None = None, format_strings: list[str] | None = None) -> Logger:
    """
    Configure the current logger.
    """
    if format_strings is None:
        format_strings = ["stdout", "history"]
    output_formats: list[KVWriter] = []
    for fmt in format_strings:
        if fmt == "stdout":
            output_formats.append(HumanOutputFormat(sys.stdout))
        elif fmt == "history":
            output_formats.append(HistoryOutputFormat())
        else:
            raise ValueError(f"Unknown format specified: {fmt}")
    return Logger(folder=folder, output_formats=output_formats)
