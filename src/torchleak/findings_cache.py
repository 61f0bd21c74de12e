"""Findings of files already linted, so that linting an unchanged file again costs a hash.

Like ruff's cache: the CLI and the flake8 plugin store each analysed file's findings (with
their fixes when they were asked for) under the ``findings`` namespace of the project's
``.torchleak_cache`` (``torchleak.cache``). An entry's key holds everything its findings are
computed from inside the file: the source's hash, the file's path in the project, the codes
asked for, the settings, whether fixes were offered, the Python version and a stamp of
torchleak's own code (so that an edited checkout never reads what an older analysis wrote).
Its value holds what they were computed from outside the file: the (size, modification time)
of every project module the project index read for it; any of those files changing makes
the entry stale. Reading needs neither libcst nor the analysis: an editor or CI re-linting
files that did not change pays for reading one small JSON file each.

``--no-cache``, ``TORCHLEAK_NO_CACHE=1`` and ``cache-dir`` apply as to the project index.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final, Optional

from torchleak.analysis.settings import Settings
from torchleak.cache import Cache, cache_at, cache_directory, enabled_by_environment, fingerprint
from torchleak.rule import Finding, Offer, TextEdit

NAMESPACE: Final = "findings"
#: Bumped when what an entry holds changes shape.
SCHEMA: Final = 1


@dataclass(frozen=True)
class Slot:
    """Where one file's findings are kept, and the project root its dependencies are relative to."""

    cache: Cache
    root: Path
    key: str
    #: The key of the file's record of findings per component (the key less the source's hash).
    components_key: str = ""


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """A hash of the size and modification time of every module of torchleak itself."""
    package = Path(__file__).resolve().parent
    parts = []
    for path in sorted(package.rglob("*.py")):
        stamp = fingerprint(path)
        parts.append(f"{path.relative_to(package).as_posix()}:{stamp}")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def slot_for(source: str, settings: Settings, codes: Collection[str], fixes: bool) -> Optional[Slot]:
    """The slot of the file ``settings.origin`` names, or None: no origin (stdin), the cache
    switched off, or its directory cannot be created."""
    origin = settings.origin
    if origin is None or not origin.use_cache or not enabled_by_environment():
        return None
    root, directory = cache_directory(origin.path, origin.cache_dir, origin.linted_directory)
    cache = cache_at(directory)
    if cache is None:
        return None
    try:
        where = Path(os.path.abspath(origin.path)).relative_to(root).as_posix()
    except ValueError:
        where = os.path.abspath(origin.path)
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()
    head = (str(SCHEMA), code_stamp(), ".".join(map(str, sys.version_info[:2])), str(root), where)
    tail = (",".join(sorted(codes)), settings.vocabulary_key(), "fixes" if fixes else "")
    return Slot(cache, root, "|".join((*head, digest, *tail)), "|".join(("components", *head, *tail)))


@functools.lru_cache(maxsize=None)
def _current_stamp(path: Path) -> Optional[tuple[int, int]]:
    """A dependency's (size, mtime), looked up once per process (one lint run)."""
    return fingerprint(path)


def read(slot: Slot) -> Optional[list[Finding]]:
    """The findings stored for the slot's key, if every file they depend on is unchanged."""
    value = slot.cache.get(NAMESPACE, slot.key)
    if not isinstance(value, dict):
        return None
    try:
        for path, stamp in value["deps"].items():
            if _current_stamp(slot.root / path) != (int(stamp[0]), int(stamp[1])):
                return None
        return [_finding(item) for item in value["findings"]]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def write(slot: Slot, findings: Sequence[Finding], deps: Mapping[str, tuple[int, int]]) -> None:
    """Store the findings and the stamps of the project files they were computed from."""
    value = {
        "findings": [[finding.line, finding.column, finding.code, finding.message, _offer_data(finding.fix)] for finding in findings],
        "deps": {path: list(stamp) for path, stamp in deps.items()},
    }
    slot.cache.put(NAMESPACE, slot.key, value)


#: A finding relative to its component: the rank of its segment in the component, its line
#: counted from that segment's first line, its column, code and message.
Placed = tuple[int, int, int, str, str]


@dataclass
class Record:
    """What the file's last lint stored: findings per component (by the component's digest,
    ``analysis/components.py``), what each segment shows of its names (by the segment's
    digest), and the project files both depend on."""

    components: dict[str, list[Placed]]
    names: dict[str, Any]
    deps: dict[str, tuple[int, int]]


def read_components(slot: Slot) -> Record:
    """The file's record; an empty one when there is none or a project file it depends on changed."""
    empty = Record({}, {}, {})
    value = slot.cache.get(NAMESPACE, slot.components_key)
    if not isinstance(value, dict):
        return empty
    try:
        deps = {str(path): (int(stamp[0]), int(stamp[1])) for path, stamp in value["deps"].items()}
        if any(_current_stamp(slot.root / path) != stamp for path, stamp in deps.items()):
            return empty
        components = {
            str(digest): [(int(rank), int(line), int(column), str(code), str(message)) for rank, line, column, code, message in items]
            for digest, items in value["components"].items()
        }
        names = value["names"]
        return Record(components, names if isinstance(names, dict) else {}, deps)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return empty


def write_components(slot: Slot, record: Record) -> None:
    """Store the file's record (only the components and segments it has now)."""
    value = {"components": {digest: [list(item) for item in items] for digest, items in record.components.items()},
             "names": record.names, "deps": {path: list(stamp) for path, stamp in record.deps.items()}}
    slot.cache.put(NAMESPACE, slot.components_key, value)


def project_dependencies(settings: Settings) -> dict[str, tuple[int, int]]:
    """What the project index read for the file just linted (nothing when it was not used)."""
    project = sys.modules.get("torchleak.analysis.project")
    if project is None or settings.origin is None:
        return {}
    return project.index_for(settings.origin, settings).dependencies()  # type: ignore[no-any-return]


def _offer_data(offer: Optional[Offer]) -> Optional[dict[str, Any]]:
    return None if offer is None else asdict(offer)


def _finding(item: list[Any]) -> Finding:
    line, column, code, message, offer = item
    fix = None
    if offer is not None:
        edits = tuple(TextEdit(*(edit[name] for name in ("start_line", "start_column", "end_line", "end_column", "content"))) for edit in offer["edits"])
        fix = Offer(str(offer["safety"]), str(offer["description"]), edits, str(offer.get("reason", "")))
    return Finding(int(line), int(column), str(code), str(message), fix)
