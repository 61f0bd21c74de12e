"""Caches of what pure functions of a libcst node compute (``dotted``, ``mentions``), live only
while an analysis runs.

The walks of one file ask the same questions of the same nodes many times (``dotted`` nine
times per node on a training file, ``mentions`` three times, and the final walk again what
the evidence walk asked). Entries are keyed by ``id`` and keep their node, so that an id
reused by another object never answers for it; they are dropped when the outermost analysis
ends, so that no tree outlives its file. Outside an analysis (the rules' queries), nothing is
cached.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: How many analyses are running (the project index analyses imported modules inside one).
depth = 0
_caches: list[dict[int, tuple[Any, Any]]] = []


def node_cache() -> dict[int, tuple[Any, Any]]:
    """A cache ``id(node) -> (node, answer)``, emptied when the outermost analysis ends."""
    cache: dict[int, tuple[Any, Any]] = {}
    _caches.append(cache)
    return cache


@contextmanager
def analysing() -> Iterator[None]:
    """Cache answers about nodes while the block runs."""
    global depth
    depth += 1
    try:
        yield
    finally:
        depth -= 1
        if depth <= 0:
            depth = 0
            for cache in _caches:
                cache.clear()
