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

The engine parses a file as segments (its top-level statements, ``analysis/prefilter.py``).
An editor lints the file again after each edit, which changes one segment: ``parse_segments``
keeps each segment's tree in the project's cache (``torchleak.cache``, namespace ``trees``),
keyed by the segment's text, libcst's version and Python's, so that only the segments not
seen before are parsed. An entry is the tree pickled and compressed (about 2 KB per training
loop function); loading one costs about 0.4x its parse (instructions), storing one about as
much, so trees are stored from a file's second lint on (the first only notes the file): a run
that lints each file once (CI, the command over a project) stores none. ``--no-cache``,
``TORCHLEAK_NO_CACHE=1`` and ``cache-dir`` apply as to the other caches; writes are atomic
(flake8 lints files in parallel processes); the namespace is bounded (``MAX_TREES`` entries,
the ones written longest ago go first). Loading unpickles only libcst's node classes and its
enums (``_TreeUnpickler``): a cache directory planted in a repository cannot make the linter
run code. An entry that cannot be read or loaded is parsed again, never an error.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import io
import os
import pickle
import sys
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, Optional

if TYPE_CHECKING:
    import libcst as cst

    from torchleak.analysis.prefilter import Segment
    from torchleak.analysis.settings import Origin
    from torchleak.cache import Cache

#: The cache namespace of segment trees, and the most entries it keeps.
NAMESPACE: Final = "trees"
MAX_TREES: Final = 20_000
#: Bumped when what an entry holds changes shape.
SCHEMA: Final = 1

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


def statements_code(text: str, tree: cst.Module) -> str:
    """``cst.Module(body=tree.body).code`` (the statements' code as a module of libcst's
    defaults writes it) for ``tree``, the parse of ``text``, read off ``text`` where that gives
    the same string: the codegen walks every node (about 5 % of the project index's cost on a
    library, where the linted module's code is scanned for the imports it uses). The text's
    lines less the module's header and footer lines are that code when the module's indent and
    newline are libcst's defaults; otherwise (a tab or two-space indent, ``\\r\\n``) the codegen
    is made (tests/test_parsing.py compares both on every zoo and realistic example)."""
    import libcst

    if tree.default_indent != "    " or tree.default_newline != "\n" or "\r" in text:
        return libcst.Module(body=tree.body).code
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    kept = lines[len(tree.header) : len(lines) - len(tree.footer)]
    return "".join(line + "\n" for line in kept)


def parse_segments(segments: Sequence[Segment], origin: Optional[Origin] = None) -> list[tuple[int, cst.Module]]:
    """Each segment's first line and tree; trees of segments parsed before (in any file of the
    project) are loaded from the cache when ``origin`` allows one. Raises what
    ``libcst.parse_module`` raises."""
    import libcst

    cache = _cache_for(origin)
    trees: list[Optional[cst.Module]] = [None] * len(segments)
    if cache is not None:
        trees = [_load(cache, segment.text) for segment in segments]
    missing = [index for index, tree in enumerate(trees) if tree is None]
    if missing:
        with validation_skipped():
            for index in missing:
                trees[index] = libcst.parse_module(segments[index].text)
        if cache is not None and origin is not None and (len(missing) < len(segments) or _linted_before(cache, origin.path)):
            for index in missing:
                _store(cache, segments[index].text, trees[index])
            with contextlib.suppress(Exception):
                cache.bound(NAMESPACE, MAX_TREES)
    return [(segment.first_line, tree) for segment, tree in zip(segments, trees) if tree is not None]


def _linted_before(cache: Cache, path: str) -> bool:
    """Whether the file at ``path`` was linted before; if not, it is noted as linted now. Trees
    are stored from a file's second lint on: storing them costs about 40 % of their parse, which
    a run that lints each file once (CI, the command over a project) would pay for nothing."""
    key = f"{_stamp()}linted|{os.path.abspath(path)}"
    try:
        if cache.get_bytes(NAMESPACE, key) is not None:
            return True
        cache.put_bytes(NAMESPACE, key, b"")
    except Exception:  # a cache that cannot be used only costs time
        pass
    return False


def _cache_for(origin: Optional[Origin]) -> Optional[Cache]:
    """The cache of the project ``origin`` lies in, when one may be used."""
    if origin is None or not origin.use_cache:
        return None
    from torchleak.cache import cache_at, cache_directory, enabled_by_environment

    try:
        if not enabled_by_environment() or _stamp() is None:
            return None
        return cache_at(cache_directory(origin.path, origin.cache_dir, origin.linted_directory)[1])
    except Exception:  # a cache that cannot be used only costs time
        return None


@functools.lru_cache(maxsize=1)
def _stamp() -> Optional[str]:
    """What a tree depends on besides its text: libcst's version and Python's (None: unknown)."""
    try:
        from libcst._version import version
    except ImportError:
        return None
    python = f"{sys.implementation.name} {sys.version_info[0]}.{sys.version_info[1]}"
    return f"{SCHEMA}|libcst {version}|{python}|pickle {pickle.HIGHEST_PROTOCOL}|"


def _load(cache: Cache, text: str) -> Optional[cst.Module]:
    """The tree stored for ``text``; None when there is none, or it cannot be read or loaded."""
    import libcst

    try:
        blob = cache.get_bytes(NAMESPACE, f"{_stamp()}{text}")
        if blob is None:
            return None
        tree = _TreeUnpickler(io.BytesIO(zlib.decompress(blob))).load()
    except Exception:  # a damaged or foreign entry: parse again
        return None
    return tree if type(tree) is libcst.Module else None


def _store(cache: Cache, text: str, tree: Optional[cst.Module]) -> None:
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _reducers()
    try:
        pickler.dump(tree)
        cache.put_bytes(NAMESPACE, f"{_stamp()}{text}", zlib.compress(stream.getvalue(), 1))
    except Exception:  # a tree that cannot be stored is parsed again next time
        pass


@functools.lru_cache(maxsize=1)
def _reducers() -> dict[type, Any]:
    """How each libcst node class pickles: what libcst's own ``__getstate__`` gives (its fields
    by name), from field names listed once per class (libcst lists them per node, which made
    pickling a tree cost about half its parse)."""
    import copyreg
    import dataclasses

    from libcst._nodes.base import CSTNode

    def reducer(names: tuple[str, ...]) -> Any:
        def reduce(node: Any) -> tuple[Any, ...]:
            return copyreg.__newobj__, (type(node),), {name: getattr(node, name) for name in names}  # type: ignore[attr-defined]

        return reduce

    table: dict[type, Any] = {}
    pending: list[type] = [CSTNode]
    seen = set(pending)
    while pending:
        cls = pending.pop()
        if dataclasses.is_dataclass(cls):
            table[cls] = reducer(tuple(field.name for field in dataclasses.fields(cls)))
        subclasses: list[type] = cls.__subclasses__()
        pending += [subclass for subclass in subclasses if subclass not in seen]
        seen.update(subclasses)
    return table


class _TreeUnpickler(pickle.Unpickler):
    """Unpickles libcst trees and nothing else: the only globals it resolves are libcst's
    node classes and enums (what a pickled tree refers to), so an entry cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "getattr"):
            return _enum_member  # (how some Python 3.11 releases pickle an enum member: by name)
        return _tree_class(module, name)


def _enum_member(cls: Any, name: str) -> Any:
    """``getattr(cls, name)`` for a libcst enum's member only (what the pickle names)."""
    if isinstance(cls, type) and issubclass(cls, enum.Enum) and (cls.__module__ == "libcst" or cls.__module__.startswith("libcst.")):
        member = cls.__members__.get(name)
        if member is not None:
            return member
    raise pickle.UnpicklingError(f"not a libcst enum member: {cls!r}.{name}")


@functools.lru_cache(maxsize=None)
def _tree_class(module: str, name: str) -> type:
    from libcst._nodes.base import CSTNode

    if module == "libcst" or module.startswith("libcst."):
        found = getattr(sys.modules.get(module), name, None)
        if isinstance(found, type) and issubclass(found, (CSTNode, enum.Enum)):
            return found
    raise pickle.UnpicklingError(f"not a libcst tree: {module}.{name}")
