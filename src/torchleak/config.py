"""``[tool.torchleak]`` in pyproject.toml, found by walking up from the linted paths as ruff does."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised by CI on older Pythons only
    import tomli as tomllib

from torchleak.engine import ALL_CODES

#: The keys of ``[tool.torchleak]``; each is also a command-line flag (``--model-names`` ...).
KEYS: Final = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "model-names",
    "loss-names",
    "per-batch-methods",
    "respect-gitignore",
    "cache-dir",
)
_CODE_KEYS: Final = frozenset({"select", "ignore", "extend-select"})

Codes = tuple[str, ...]
PerFileIgnores = tuple[tuple[str, Codes], ...]


class ConfigError(ValueError):
    """The configuration cannot be used; the CLI reports it and exits 2."""


@dataclass(frozen=True)
class Config:
    """The table as read; ``None`` marks a key the file does not set."""

    #: The pyproject.toml it came from; None when no file has a ``[tool.torchleak]`` table.
    path: Optional[Path] = None
    select: Optional[Codes] = None
    ignore: Optional[Codes] = None
    extend_select: Optional[Codes] = None
    per_file_ignores: Optional[PerFileIgnores] = None
    exclude: Optional[tuple[str, ...]] = None
    model_names: Optional[tuple[str, ...]] = None
    loss_names: Optional[tuple[str, ...]] = None
    per_batch_methods: Optional[tuple[str, ...]] = None
    respect_gitignore: Optional[bool] = None
    #: The project index's cache directory, resolved against the pyproject.toml's directory.
    cache_dir: Optional[str] = None

    @property
    def root(self) -> Path:
        """The directory that relative patterns (exclude, per-file-ignores) are resolved against."""
        return self.path.parent if self.path is not None else Path.cwd()


def parse_codes(values: Iterable[str], where: str) -> Codes:
    """Upper-cased codes or prefixes (``TLK1``); each must name at least one torchleak code."""
    codes = tuple(value.strip().upper() for value in values if value.strip())
    for code in codes:
        if not any(known.startswith(code) for known in ALL_CODES):
            raise ConfigError(f"{where}: {code!r} matches no torchleak code (see torchleak --list-rules)")
    return codes


def parse_per_file_ignores(pairs: Iterable[tuple[str, Iterable[str]]], where: str) -> PerFileIgnores:
    return tuple((pattern, parse_codes(codes, f"{where} {pattern!r}")) for pattern, codes in pairs)


def find(paths: Sequence[str]) -> Optional[Path]:
    """The nearest pyproject.toml with a ``[tool.torchleak]`` table above the paths' common directory."""
    existing = [os.path.abspath(path) for path in paths if path != "-"] or [os.getcwd()]
    start = Path(os.path.commonpath(existing))
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


@functools.lru_cache(maxsize=None)
def find_from(directory: str) -> Optional[Path]:
    """The nearest pyproject.toml with a ``[tool.torchleak]`` table in ``directory`` or above it
    (the closest one applies to each file, as in ruff)."""
    start = Path(os.path.abspath(directory))
    candidate = start / "pyproject.toml"
    if candidate.is_file() and _table(candidate) is not None:
        return candidate
    return None if start.parent == start else find_from(str(start.parent))


@functools.lru_cache(maxsize=None)
def load_cached(path: Optional[Path]) -> Config:
    return load(path)


def load(path: Optional[Path]) -> Config:
    """Read ``[tool.torchleak]`` from ``path``; ``Config()`` when there is none."""
    if path is None:
        return Config()
    table = _table(path)
    where = f"{path}: [tool.torchleak]"
    if table is None:
        return Config(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(KEYS)}")
    values: dict[str, object] = {}
    for key, value in table.items():
        if key == "per-file-ignores":
            if not isinstance(value, dict) or not all(_is_strings(codes) for codes in value.values()):
                raise ConfigError(f"{where} per-file-ignores must map glob patterns to lists of codes")
            values["per_file_ignores"] = parse_per_file_ignores(value.items(), f"{where} per-file-ignores")
            continue
        if key == "respect-gitignore":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} respect-gitignore must be true or false")
            values["respect_gitignore"] = value
            continue
        if key == "cache-dir":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where} cache-dir must be a directory name (a string)")
            values["cache_dir"] = str(path.parent / os.path.expanduser(value.strip()))
            continue
        if not _is_strings(value):
            raise ConfigError(f"{where} {key} must be a list of strings")
        strings = tuple(item.strip() for item in value if item.strip())
        values[key.replace("-", "_")] = parse_codes(strings, f"{where} {key}") if key in _CODE_KEYS else strings
    return Config(path, **values)  # type: ignore[arg-type]


def _is_strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _table(path: Path) -> object:
    """The ``[tool.torchleak]`` value in ``path``, or None; a file that is not TOML is an error."""
    try:
        with path.open("rb") as stream:
            tool = tomllib.load(stream).get("tool")
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from error
    return tool.get("torchleak") if isinstance(tool, dict) else None
