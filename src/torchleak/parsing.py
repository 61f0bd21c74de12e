"""How source text becomes libcst trees, at the lowest cost that gives the same trees.

libcst validates every node its parser builds (``CSTNode.__post_init__`` calls ``_validate``),
which only re-checks what the grammar already guaranteed: libcst's own comment there calls it
a candidate for removal at parse time. On the 5,000-line training file it costs 0.33G of the
3.76G instructions of libcst's bare ``parse_module`` (and 14 % of its CPU time, measured by
no-op'ing it). ``parse_module`` skips it for the nodes its own parse builds, and for no others:

* ``CSTNode.__post_init__`` is replaced only while the parse runs and put back afterwards,
  whatever the parse raises;
* when this thread is the only Python thread, the stand-in is a C callable that does nothing
  (``tuple``: a type, so not bound as a method, and ``tuple()`` costs next to nothing); with
  other threads alive, it is a function that skips validation only on the threads inside
  ``parse_module`` and validates every node other threads build, as libcst would;
* the trees are the ones libcst builds (``tests/test_parsing.py`` compares them with
  ``deep_equals`` on the training file and every zoo and realistic example).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import libcst as cst

_lock = threading.Lock()
#: Threads inside ``parse_module`` (ident -> how many times, for nested use).
_parsing: dict[int, int] = {}
#: ``CSTNode.__post_init__`` as it was before the first of the parses under way.
_saved: list[Any] = []


def _validate_off_our_threads(node: Any) -> None:
    """The stand-in when other threads may build nodes meanwhile: they are validated."""
    if threading.get_ident() not in _parsing:
        node._validate()


def _alone() -> bool:
    """Whether this thread is the only one that can run Python code now."""
    frames = getattr(sys, "_current_frames", None)
    return threading.active_count() == 1 and frames is not None and len(frames()) == 1


@contextmanager
def validation_skipped() -> Iterator[None]:
    """libcst builds nodes without validating them, on this thread, inside the ``with``."""
    from libcst._nodes.base import CSTNode

    ident = threading.get_ident()
    with _lock:
        if not _parsing:
            _saved.append(CSTNode.__dict__["__post_init__"])
            stand_in = tuple if _alone() else _validate_off_our_threads
            CSTNode.__post_init__ = stand_in  # type: ignore[assignment,method-assign]
        _parsing[ident] = _parsing.get(ident, 0) + 1
    try:
        yield
    finally:
        with _lock:
            if _parsing[ident] == 1:
                del _parsing[ident]
            else:
                _parsing[ident] -= 1
            if not _parsing:
                CSTNode.__post_init__ = _saved.pop()  # type: ignore[method-assign]


def parse_module(source: str) -> cst.Module:
    """``libcst.parse_module(source)``, without libcst's validation of the nodes it builds."""
    import libcst

    with validation_skipped():
        return libcst.parse_module(source)
