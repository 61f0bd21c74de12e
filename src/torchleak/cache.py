"""An on-disk cache of JSON blobs (and of bytes), shared by every torchleak process of a project.

Layout: ``<root>/.torchleak_cache/`` (or the ``cache-dir`` setting) holds a ``.gitignore``
containing ``*`` (so that nobody commits it, as ruff does for ``.ruff_cache``), and one
directory per torchleak version, so that an upgrade never reads blobs an older version
wrote. Inside, each *namespace* (``modules`` for the project index's module summaries) is a
directory of ``<sha1 of key>.json`` files, each holding ``{"key": ..., "value": ...}``.

API, for any part of torchleak that wants to keep work between runs::

    cache = Cache.at(directory)          # None when the directory cannot be created
    cache.get("namespace", "some key")   # the JSON value, or None (absent, unreadable, other key)
    cache.put("namespace", "some key", value)
    cache.get_bytes("namespace", "some key")   # bytes: ``<sha1 of key>.bin`` files, which start
    cache.put_bytes("namespace", "some key", b"...")   # with a hash of the whole key
    cache.bound("namespace", 20_000)     # keep the entries written last (``trees`` does)

Keys are strings chosen by the caller; put everything the value depends on into the key, or
into the value and check it on ``get`` (the project index stores the size and modification
time of every file a summary was computed from, see ``fingerprint``). Writes are atomic
(a temporary file in the same directory, then ``os.replace``), because flake8 and the CLI
lint files in parallel processes: a reader sees the old blob or the new one, never half of
one. Every error is swallowed: a cache that cannot be read or written only costs time.

``TORCHLEAK_NO_CACHE=1`` in the environment turns the cache off (``enabled_by_environment``),
as ``--no-cache`` does on the command line.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any, Final, Optional

from torchleak import __version__

#: The directory's name at the project root, like ruff's ``.ruff_cache``.
DIRECTORY_NAME: Final = ".torchleak_cache"
ENVIRONMENT_SWITCH: Final = "TORCHLEAK_NO_CACHE"


#: Files whose directory is a project's root (the project index and the caches start there).
ROOT_MARKERS: Final = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


def find_root(directory: str, linted: Optional[str] = None) -> tuple[Path, bool]:
    """The project root of a file in ``directory``, and whether a marker decided it: the
    nearest directory at or above it holding a ``pyproject.toml``, ``setup.cfg``, ``setup.py``
    or ``.git``; else the working directory when it contains ``directory`` (where flake8 or
    the command was started); else the directory given on the command line that holds it
    (``linted``); else ``directory`` itself."""
    return _find_root(os.path.abspath(directory), os.getcwd(), os.path.abspath(linted) if linted else None)


@functools.lru_cache(maxsize=None)
def _find_root(directory: str, cwd: str, linted: Optional[str] = None) -> tuple[Path, bool]:
    start = Path(directory)
    for candidate in (start, *start.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate, True
    for fallback in (Path(cwd), Path(linted) if linted else None):
        if fallback is not None and (fallback == start or fallback in start.parents):
            return fallback, False
    return start, False


def cache_directory(path: str, configured: Optional[str], linted: Optional[str] = None) -> tuple[Path, Path]:
    """The project root of the file at ``path`` and the cache directory of its project: the
    configured one, else ``.torchleak_cache`` at the root. Without a project marker the cache
    goes where the run started (as ruff's does), not into every directory of loose files;
    keys hold the root, so roots never mix."""
    root, marked = find_root(os.path.dirname(os.path.abspath(path)), linted)
    return root, Path(configured) if configured else (root if marked else Path.cwd()) / DIRECTORY_NAME


def enabled_by_environment() -> bool:
    """False when ``TORCHLEAK_NO_CACHE`` is set to anything but ``""``, ``0`` or ``false``."""
    return os.environ.get(ENVIRONMENT_SWITCH, "").strip().lower() in ("", "0", "false", "no")


def fingerprint(path: str | os.PathLike[str]) -> Optional[tuple[int, int]]:
    """(size, modification time in ns) of a file, or None when it cannot be read."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


@functools.lru_cache(maxsize=16)
def cache_at(directory: Path) -> Optional[Cache]:
    """``Cache.at(directory)``, created once per process."""
    return Cache.at(directory)


class Cache:
    """JSON blobs (and bytes) by (namespace, key) under one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._versioned = directory / __version__

    @classmethod
    def at(cls, directory: str | os.PathLike[str]) -> Optional[Cache]:
        """The cache in ``directory`` (created with its ``.gitignore``), or None when it cannot be."""
        path = Path(directory)
        try:
            path.mkdir(parents=True, exist_ok=True)
            ignore = path / ".gitignore"
            if not ignore.exists():
                _write_atomically(ignore, "# Automatically created by torchleak.\n*\n")
        except OSError:
            return None
        return cls(path)

    def _file(self, namespace: str, key: str, suffix: str = ".json") -> Path:
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()
        return self._versioned / namespace / f"{digest}{suffix}"

    def get(self, namespace: str, key: str) -> Any:
        """The value stored under ``key``, or None."""
        try:
            with open(self._file(namespace, key), encoding="utf-8") as stream:
                blob = json.load(stream)
        except (OSError, ValueError):
            return None
        if not isinstance(blob, dict) or blob.get("key") != key:
            return None  # a hash collision, or a blob from something else
        return blob.get("value")

    def put(self, namespace: str, key: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``; failures are ignored."""
        path = self._file(namespace, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(path, json.dumps({"key": key, "value": value}, separators=(",", ":")))
        except (OSError, TypeError, ValueError):
            pass


    def get_bytes(self, namespace: str, key: str) -> Optional[bytes]:
        """The bytes stored under ``key`` by ``put_bytes``, or None."""
        try:
            with open(self._file(namespace, key, ".bin"), "rb") as stream:
                blob = stream.read()
        except OSError:
            return None
        check = _key_check(key)
        if not blob.startswith(check):
            return None  # a hash collision, or a blob from something else
        return blob[len(check) :]

    def put_bytes(self, namespace: str, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (the file starts with a hash of the whole key, which
        ``get_bytes`` checks); failures are ignored."""
        path = self._file(namespace, key, ".bin")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(path, _key_check(key) + value)
        except OSError:
            pass

    def bound(self, namespace: str, most: int) -> None:
        """Keep at most ``most`` entries in ``namespace``: beyond it, the entries written longest
        ago are removed, down to three quarters of ``most`` (so that the next writes do not
        prune again at once). Failures are ignored; a concurrent prune only removes more."""
        directory = self._versioned / namespace
        try:
            with os.scandir(directory) as scan:
                names = [entry.name for entry in scan if not entry.name.startswith(".")]
            if len(names) <= most:
                return
            aged = []
            for name in names:
                try:
                    aged.append((os.stat(directory / name).st_mtime_ns, name))
                except OSError:
                    pass
            aged.sort()
            for _, name in aged[: max(0, len(aged) - most * 3 // 4)]:
                try:
                    os.unlink(directory / name)
                except OSError:
                    pass
        except OSError:
            pass


def _key_check(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


def _write_atomically(path: Path, content: str | bytes) -> None:
    # A name no other process uses, created with the umask's permissions (mkstemp's are 0600).
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
