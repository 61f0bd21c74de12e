"""The project index: what a file's imports of its own project's modules stand for.

Real training code is never one file: ``from utils import AverageMeter`` in ``train.py``
binds a class whose ``update`` sums its argument into ``self.sum``. This module finds the
project's root from the linted file, resolves its imports to the project's own files (flat
scripts side by side, ``src/`` layouts, relative imports, ``import pkg.mod as m``,
re-exports through ``__init__.py``), reads those files from disk (never importing or running
them), analyses each with the same interpreter as the linted file (``flow.analyse``), and
hands the linted file's analysis the summaries of the functions and classes it imports
(``summaries.Externals``). Third-party and standard-library imports resolve to nothing and
stay unknown.

Modules are summarised dependencies first; the modules of an import cycle are summarised
together, again and again until their summaries stop changing (at most
``FIXPOINT_ROUNDS`` rounds). Summaries are cached on disk (``torchleak.cache``) under the
``modules`` namespace, each with the size and modification time of every file it was
computed from, so that a second run reads JSON instead of parsing, and an edit to any of
those files recomputes it. A new file that would now satisfy an import which resolved to
nothing before is not noticed until one of those files changes (or with ``--no-cache``).
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Final, Optional, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from torchleak.analysis.facts import FileFacts, Function
from torchleak.analysis.names import dotted
from torchleak.analysis.prefilter import called_under_no_grad
from torchleak.analysis.settings import Origin, Settings
from torchleak.analysis.summaries import (
    ClassSummary,
    Effect,
    Externals,
    Imported,
    ModuleSummary,
    Summary,
    class_key,
)
from torchleak.analysis.values import Value
from torchleak.cache import DIRECTORY_NAME, Cache, enabled_by_environment, fingerprint

#: A directory holding one of these is a project's root (as ruff and mypy decide it).
ROOT_MARKERS: Final = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
#: Bumped when what a module summary holds changes, so that older cache entries are not read.
SCHEMA: Final = 1
#: Import cycles: rounds of summarising their modules before giving up on a fixpoint.
FIXPOINT_ROUNDS: Final = 3
#: The most modules one file's imports may make the index read (a bound on cold-cache cost).
MAX_MODULES: Final = 300
#: Re-exports followed through at most this many ``__init__.py`` files.
MAX_REEXPORT_DEPTH: Final = 8
_NAMESPACE: Final = "modules"
#: Importers whose summaries are read to learn what they backward (a bound on cold-cache cost).
MAX_IMPORTERS: Final = 20
#: Files of a project scanned for importers (beyond, importers stay unknown).
MAX_PROJECT_FILES: Final = 5000
_SKIPPED_FOLDERS: Final = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"})


def find_root(directory: str) -> tuple[Path, bool]:
    """The project root of a file in ``directory``, and whether a marker decided it: the
    nearest directory at or above it holding a ``pyproject.toml``, ``setup.cfg``, ``setup.py``
    or ``.git``; else the working directory when it contains ``directory`` (where flake8 or
    the command was started); else ``directory`` itself."""
    return _find_root(os.path.abspath(directory), os.getcwd())


@functools.lru_cache(maxsize=None)
def _find_root(directory: str, cwd: str) -> tuple[Path, bool]:
    start = Path(directory)
    for candidate in (start, *start.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate, True
    working = Path(cwd)
    return (working if working == start or working in start.parents else start), False


# --------------------------------------------------------------------------- imports
@dataclass(frozen=True)
class ImportBinding:
    """A name an import statement binds to something of the project.

    ``symbol`` is None for a module (``import utils``, ``from pkg import mod``), ``"*"`` for a
    star import, else the name imported from ``module`` (``from utils import AverageMeter``).
    """

    local: str
    #: The module's file, relative to the project root, with ``/`` separators.
    module: str
    symbol: Optional[str] = None
    #: The importing code calls the name, reads an attribute of it or derives a class from it
    #: (an import only re-exported or used in annotations is not summarised for that module).
    used: bool = True


def _relative(path: Path, root: Path) -> Optional[str]:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)
def _module_file(name: str, directory: str, root: str, level: int) -> Optional[str]:
    """The project file (relative to ``root``) that ``import name`` (``level`` dots in front)
    loads from a file in ``directory``, or None when it is not one of the project's files."""
    parts = [part for part in name.split(".") if part]
    root_path = Path(root)
    if level:
        base = Path(directory)
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        # A script's own directory comes first on sys.path; then the root and a src/ layout.
        bases = [Path(directory), root_path, root_path / "src"]
    for base in bases:
        target = base.joinpath(*parts)
        candidates = [target / "__init__.py"]
        if parts:
            candidates.insert(0, target.with_name(target.name + ".py"))
        for candidate in candidates:
            if candidate.is_file():
                relative = _relative(candidate, root_path)
                if relative is not None and "site-packages" not in relative:
                    return relative
    return None


def _uses(source: str, local: str) -> bool:
    """Whether ``source`` calls ``local``, reads an attribute of it, names it as a base, or
    annotates a parameter with it (``meter: AverageMeter``: its methods are then followed)."""
    name = re.escape(local)
    return re.search(rf"\b{name}\s*[(.]|^[ \t]*class\s+\w+\s*\([^)]*\b{name}\b", source, re.MULTILINE) is not None


def import_bindings(statements: Iterator[cst.CSTNode], file: Path, root: Path, source: str) -> list[ImportBinding]:
    """The bindings of the import statements among ``statements`` that reach project modules;
    ``source`` (the importing module's text) tells which of them the code uses."""
    directory, root_text = str(file.parent), str(root)
    own = _relative(file, root)
    found: list[ImportBinding] = []
    for statement in statements:
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                name = dotted(alias.name) or ""
                module = _module_file(name, directory, root_text, 0)
                if module is None or module == own:
                    continue
                local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
                found.append(ImportBinding(local, module, None, _uses(source, local)))
        elif isinstance(statement, cst.ImportFrom):
            level = len(statement.relative)
            base = dotted(statement.module) if statement.module is not None else ""
            if base is None:
                continue
            if isinstance(statement.names, cst.ImportStar):
                module = _module_file(base, directory, root_text, level)
                if module is not None and module != own:
                    found.append(ImportBinding("*", module, "*"))
                continue
            for alias in statement.names:
                imported = dotted(alias.name) or ""
                local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else imported
                submodule = _module_file(f"{base}.{imported}" if base else imported, directory, root_text, level)
                if submodule is not None and submodule != own:
                    found.append(ImportBinding(local, submodule, None, _uses(source, local)))
                    continue
                module = _module_file(base, directory, root_text, level)
                if module is not None and module != own:
                    found.append(ImportBinding(local, module, imported, _uses(source, local)))
    return found


def _iter_imports(body: Union[cst.Module, cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every import statement of a module, nested ones included (``try: import ...``)."""
    from torchleak.analysis.flow import iter_statements

    statements = body.body if isinstance(body, cst.Module) else [body]
    for statement in iter_statements(statements):
        if isinstance(statement, (cst.Import, cst.ImportFrom)):
            yield statement


# --------------------------------------------------------------------------- the index
@dataclass
class _Entry:
    """One module of the project as the index knows it."""

    summary: ModuleSummary
    bindings: list[ImportBinding]
    #: Every file the summary was computed from (itself included): path -> (size, mtime_ns).
    deps: dict[str, tuple[int, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "summary": self.summary.to_dict(),
            "bindings": [[b.local, b.module, b.symbol, b.used] for b in self.bindings],
            "deps": {path: list(stamp) for path, stamp in self.deps.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> _Entry:
        bindings = [ImportBinding(str(local), str(module), None if symbol is None else str(symbol), bool(used)) for local, module, symbol, used in data["bindings"]]  # type: ignore[attr-defined]
        deps = {str(path): (int(stamp[0]), int(stamp[1])) for path, stamp in data["deps"].items()}  # type: ignore[attr-defined]
        return cls(ModuleSummary.from_dict(data["summary"]), bindings, deps)  # type: ignore[arg-type]


@dataclass
class _Parsed:
    """A module being summarised: its tree, imports and fingerprint."""

    module: Optional[cst.Module]
    source: str
    bindings: list[ImportBinding]
    stamp: Optional[tuple[int, int]]


class ProjectIndex:
    """The summaries of one project's modules, for the files of that project being linted."""

    def __init__(self, root: Path, settings: Settings, cache: Optional[Cache]) -> None:
        self.root = root
        #: Summaries are computed without an origin (no recursion into the index from flow).
        self.settings = replace(settings, origin=None)
        self.cache = cache
        self._entries: dict[str, _Entry] = {}
        self._sources: Optional[list[tuple[str, str]]] = None
        self._key_suffix = f"|{root}|{SCHEMA}|{self.settings.vocabulary_key()}"

    # ----------------------------------------------------------------- public
    def externals(self, file: Path, statements: Iterator[cst.CSTNode], source: str) -> Externals:
        """What the import statements of ``file`` (any of them, nested ones included) bind,
        and which of its functions' results the modules importing it backward."""
        bindings = [binding for binding in import_bindings(statements, file, self.root, source) if binding.used]
        for binding in bindings:
            self._ensure(binding.module)
        externals = self._externals(bindings)
        relative = _relative(file, self.root)
        if relative is not None:
            externals.backwarded_by_importers = _Lazy(lambda: self._backwarded_by_importers(relative))
            folder = PurePosixPath(relative).parent.as_posix()
            externals.directory = "" if folder == "." else folder + "/"
        return externals

    def _backwarded_by_importers(self, module: str) -> frozenset[str]:
        """Functions of ``module`` whose results a module importing it backwards."""
        found: set[str] = set()
        prefix = module + ":"
        for importer in self._importers(module):
            entry = self._ensure(importer)
            if entry is not None and any(binding.module == module for binding in entry.bindings):
                found.update(key[len(prefix):] for key in entry.summary.backwarded if key.startswith(prefix))
        return frozenset(found)

    def _importers(self, module: str) -> list[str]:
        """The project's files whose text imports something named like ``module`` (the index
        then checks that the import resolves to it)."""
        path = PurePosixPath(module)
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if not name:
            return []
        pattern = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n]*\b" + re.escape(name) + r"\b", re.MULTILINE)
        importers = []
        for candidate, text in self._project_sources():
            if candidate != module and pattern.search(text) is not None:
                importers.append(candidate)
                if len(importers) >= MAX_IMPORTERS:
                    break
        return importers

    def _project_sources(self) -> list[tuple[str, str]]:
        """Every Python file of the project (virtualenvs, hidden and build folders left out)
        with its text, read once per process."""
        if self._sources is None:
            self._sources = []
            for directory, folders, files in os.walk(self.root):
                folders[:] = sorted(
                    folder for folder in folders
                    if not folder.startswith(".") and folder not in _SKIPPED_FOLDERS
                    and not os.path.exists(os.path.join(directory, folder, "pyvenv.cfg"))
                )
                for file in sorted(files):
                    if file.endswith(".py") and len(self._sources) < MAX_PROJECT_FILES:
                        full = os.path.join(directory, file)
                        try:
                            with open(full, encoding="utf-8", errors="replace") as stream:
                                text = stream.read()
                        except OSError:
                            continue
                        self._sources.append((Path(full).relative_to(self.root).as_posix(), text))
        return self._sources

    # ----------------------------------------------------------------- entries
    def _ensure(self, module: str) -> Optional[_Entry]:
        """The entry of ``module``: from memory, the disk cache, or summarised now."""
        entry = self._entries.get(module) or self._load(module)
        if entry is None:
            self._summarise_from(module)
            entry = self._entries.get(module)
        return entry

    def _known(self, module: str) -> Optional[_Entry]:
        """The entry of ``module`` if summarised in this process or cached on disk (name
        resolution reads re-exports through it; it never starts a summary)."""
        return self._entries.get(module) or self._load(module)

    def _load(self, module: str) -> Optional[_Entry]:
        if self.cache is None:
            return None
        data = self.cache.get(_NAMESPACE, module + self._key_suffix)
        if not isinstance(data, dict):
            return None
        try:
            entry = _Entry.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        for path, stamp in entry.deps.items():
            if fingerprint(self.root / path) != stamp:
                return None
        if module not in entry.deps:
            return None
        self._entries[module] = entry
        return entry

    def _summarise_from(self, start: str) -> None:
        """Summarise ``start`` and every stale module it imports, dependencies first (Tarjan's
        strongly connected components come out in that order); cycles to a bounded fixpoint."""
        parsed: dict[str, _Parsed] = {}
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()

        def visit(module: str) -> None:
            index[module] = low[module] = len(index)
            stack.append(module)
            on_stack.add(module)
            parsed[module] = self._parse(module)
            for binding in parsed[module].bindings:
                if not binding.used:
                    continue  # re-exported or annotations only: summarised if a name is asked for
                target = binding.module
                if target in self._entries or (target not in index and self._load(target) is not None):
                    continue  # known and fresh: nothing below it to do
                if target not in index:
                    if len(index) >= MAX_MODULES:
                        continue
                    visit(target)
                    low[module] = min(low[module], low[target])
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                self._summarise_component(component, parsed)

        visit(start)

    def _parse(self, module: str) -> _Parsed:
        path = self.root / module
        stamp = fingerprint(path)
        try:
            source = path.read_bytes().decode("utf-8-sig")
            tree = cst.parse_module(source)
        except (OSError, UnicodeDecodeError, cst.ParserSyntaxError, RecursionError, ValueError):
            return _Parsed(None, "", [], stamp)
        return _Parsed(tree, source, import_bindings(_iter_imports(tree), path, self.root, source), stamp)

    def _summarise_component(self, members: list[str], parsed: dict[str, _Parsed]) -> None:
        for member in members:
            self._entries[member] = _Entry(ModuleSummary(member), parsed[member].bindings)
        cyclic = len(members) > 1 or any(b.module == members[0] for b in parsed[members[0]].bindings)
        for _ in range(FIXPOINT_ROUNDS if cyclic else 1):
            changed = False
            for member in members:
                summary = self._summarise(member, parsed[member])
                if summary != self._entries[member].summary:
                    self._entries[member].summary = summary
                    changed = True
            if not changed:
                break
        deps: dict[str, tuple[int, int]] = {}
        for member in members:
            stamp = parsed[member].stamp
            if stamp is not None:
                deps[member] = stamp
            for binding in parsed[member].bindings:
                imported = self._entries.get(binding.module)
                if imported is not None and binding.module not in members:
                    deps.update(imported.deps)
        for member in members:
            entry = self._entries[member]
            entry.deps = dict(deps)
            if self.cache is not None and member in deps:
                self.cache.put(_NAMESPACE, member + self._key_suffix, entry.to_dict())

    def _summarise(self, module: str, parsed: _Parsed) -> ModuleSummary:
        if parsed.module is None:
            return ModuleSummary(module)
        from torchleak.analysis.flow import analyse

        externals = self._externals(parsed.bindings)
        try:
            no_grad = called_under_no_grad(ast.parse(parsed.source))
            facts = analyse(parsed.module, self.settings, no_grad, externals=externals)
            return _export(module, parsed.module, facts, externals)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ModuleSummary(module)
        except Exception:  # a bug summarising a helper must not cost the linted file its analysis
            return ModuleSummary(module)

    # ----------------------------------------------------------------- name resolution
    def _externals(self, bindings: list[ImportBinding]) -> Externals:
        names: dict[str, Imported] = {}
        for binding in bindings:
            if not binding.used:
                continue
            entry = self._known(binding.module)
            if entry is None:
                continue
            if binding.symbol is None:
                names[binding.local] = entry.summary
            elif binding.symbol == "*":
                for name, public in self._public(binding.module):
                    names.setdefault(name, public)
            else:
                found = self._symbol(binding.module, binding.symbol, 0)
                if found is not None:
                    names[binding.local] = found
        return Externals(names, _ClassRegistry(self))

    def _symbol(self, module: str, name: str, depth: int) -> Optional[Imported]:
        """What ``name`` is in ``module``: its function or class, or what it imports as ``name``."""
        entry = self._known(module)
        if entry is None or depth > MAX_REEXPORT_DEPTH:
            return None
        found: Optional[Imported] = entry.summary.functions.get(name) or entry.summary.classes.get(name)
        if found is not None:
            return found
        for binding in entry.bindings:
            if binding.local == name:
                target = self._known(binding.module) or self._ensure(binding.module)  # a re-export
                if target is None:
                    return None
                return target.summary if binding.symbol is None else self._symbol(binding.module, binding.symbol, depth + 1)
        for binding in entry.bindings:
            if binding.symbol == "*":
                self._known(binding.module) or self._ensure(binding.module)
                reexported = self._symbol(binding.module, name, depth + 1)
                if reexported is not None:
                    return reexported
        return None

    def _public(self, module: str, depth: int = 0) -> Iterator[tuple[str, Imported]]:
        """What ``from module import *`` binds: its public functions and classes, and the
        public names it imports itself (a package's ``__init__.py`` re-exporting its modules)."""
        entry = self._known(module)
        if entry is None or depth > MAX_REEXPORT_DEPTH:
            return
        for name, summary in entry.summary.functions.items():
            if not name.startswith("_"):
                yield name, summary
        for name, info in entry.summary.classes.items():
            if not name.startswith("_"):
                yield name, info
        for binding in entry.bindings:
            if binding.symbol == "*":
                self._known(binding.module) or self._ensure(binding.module)
                yield from self._public(binding.module, depth + 1)
            elif not binding.local.startswith("_") and "." not in binding.local:
                target = self._known(binding.module)
                found = target.summary if target is not None and binding.symbol is None else self._symbol(module, binding.local, depth + 1)
                if found is not None:
                    yield binding.local, found

    def class_summary(self, key: str) -> Optional[ClassSummary]:
        module, _, name = key.rpartition(":")
        entry = self._known(module)
        return entry.summary.classes.get(name) if entry is not None else None


class _Lazy:
    """A set computed on the first membership test (reading importers costs a project scan)."""

    def __init__(self, compute: Callable[[], frozenset[str]]) -> None:
        self._compute: Optional[Callable[[], frozenset[str]]] = compute
        self._items: frozenset[str] = frozenset()

    def __contains__(self, item: object) -> bool:
        if self._compute is not None:
            self._items, self._compute = self._compute(), None
        return item in self._items


class _ClassRegistry(Mapping[str, ClassSummary]):
    """Every class the index has summarised, by ``class_key``, looked up when a value names one."""

    def __init__(self, index: ProjectIndex) -> None:
        self._index = index

    def __getitem__(self, key: str) -> ClassSummary:
        found = self._index.class_summary(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        for entry in list(self._index._entries.values()):
            for info in entry.summary.classes.values():
                yield info.key

    def __len__(self) -> int:
        return sum(len(entry.summary.classes) for entry in self._index._entries.values())


# --------------------------------------------------------------------------- exporting
def _export(path: str, module: cst.Module, facts: FileFacts, externals: Externals) -> ModuleSummary:
    """The top-level functions and classes of an analysed module, as its importers see them."""
    local_classes = {statement.name.value: statement for statement in module.body if isinstance(statement, cst.ClassDef)}
    by_node = {id(function.node): function for function in facts.functions}
    lines = _Lines(module)

    def qualified(value: Value) -> Value:
        """Values naming a class of this module name it project-wide."""
        elements = tuple(qualified(element) for element in value.elements) if value.elements is not None else None
        cls = class_key(path, value.cls) if value.cls in local_classes else value.cls
        return replace(value, elements=elements, cls=cls) if (cls != value.cls or elements != value.elements) else value

    def summary_of(node: cst.FunctionDef) -> Optional[Summary]:
        function = by_node.get(id(node))
        if function is None:
            return None
        summary = function.summary
        effects = []
        for effect in summary.effects:
            # One from another module stays; a reset is never named in a message (no position needed).
            origin = effect.origin or (path if effect.kind == "reset" else _origin(effect, function))
            effects.append(replace(effect, value=qualified(effect.value), origin=origin))
        return replace(summary, returns=qualified(summary.returns), effects=effects, module=path)

    by_name = {function.name: function for function in facts.functions}

    def _origin(effect: Effect, function: Function) -> str:
        """``utils.py:25``: the statement of the function the effect names (``where``), which is
        a callee of ``function`` when ``function`` only calls the helper that does it."""
        statement = function.effect_nodes.get(id(effect))
        inner = by_name.get(effect.where)
        if inner is not None and inner is not function:
            for candidate in inner.summary.effects:
                if (candidate.kind, candidate.method) == (effect.kind, effect.method) and id(candidate) in inner.effect_nodes:
                    statement = inner.effect_nodes[id(candidate)]
                    break
        line = lines.of(statement) if statement is not None else None
        return f"{path}:{line}" if line else path

    exported = ModuleSummary(path)
    if facts.evidence is not None:
        exported.backwarded = sorted(key for key in facts.evidence.backwarded_results if ":" in key)
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            summary = summary_of(statement)
            if summary is not None:
                exported.functions[statement.name.value] = summary
    for name in local_classes:
        info = ClassSummary(name, path, is_module=name in facts.module_classes)
        for definition in _class_chain(name, local_classes):
            if isinstance(definition, ClassSummary):
                for method, summary in definition.methods.items():
                    info.methods.setdefault(method, summary)
                for attribute, value in definition.attributes.items():
                    info.attributes.setdefault(attribute, value)
                info.is_module = info.is_module or definition.is_module
                continue
            for member in definition.body.body if isinstance(definition.body, cst.IndentedBlock) else ():
                if isinstance(member, cst.FunctionDef) and member.name.value not in info.methods:
                    summary = summary_of(member)
                    if summary is not None:
                        info.methods[member.name.value] = summary
            for (owner, attribute), value in facts.attributes.items():
                if owner == definition.name.value:
                    info.attributes.setdefault(attribute, qualified(replace(value, params=frozenset())))
        exported.classes[name] = info
    # External bases are looked up after the local chain: resolve them now.
    for name, info in exported.classes.items():
        for base in _external_bases(name, local_classes):
            found = externals.resolve(base)
            if isinstance(found, ClassSummary):
                for method, summary in found.methods.items():
                    info.methods.setdefault(method, summary)
                for attribute, value in found.attributes.items():
                    info.attributes.setdefault(attribute, value)
                info.is_module = info.is_module or found.is_module
    return exported


def _class_chain(name: str, classes: Mapping[str, cst.ClassDef]) -> Iterator[cst.ClassDef]:
    """The class and its bases defined in the same module, nearest first."""
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop(0)
        if current in seen or current not in classes:
            continue
        seen.add(current)
        yield classes[current]
        pending.extend((dotted(base.value) or "").rsplit(".", 1)[-1] for base in classes[current].bases if base.keyword is None)


def _external_bases(name: str, classes: Mapping[str, cst.ClassDef]) -> Iterator[str]:
    for definition in _class_chain(name, classes):
        for base in definition.bases:
            written = dotted(base.value) if base.keyword is None else None
            if written is not None and written not in classes:
                yield written


class _Lines:
    """Line numbers of statements, resolved only when a summary has effects to place."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._positions: Optional[Mapping[cst.CSTNode, object]] = None

    def of(self, node: cst.CSTNode) -> Optional[int]:
        if self._positions is None:
            try:
                self._positions = MetadataWrapper(self._module, unsafe_skip_copy=True).resolve(PositionProvider)
            except Exception:
                self._positions = {}
        where = self._positions.get(node)
        return where.start.line if where is not None else None  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- entry point
_INDEXES: dict[tuple[str, Optional[str], bool, str], ProjectIndex] = {}


def index_for(origin: Origin, settings: Settings) -> ProjectIndex:
    """The index of the project ``origin.path`` belongs to (one per process, root and settings)."""
    root, marked = find_root(os.path.dirname(os.path.abspath(origin.path)))
    use_cache = origin.use_cache and enabled_by_environment()
    key = (str(root), origin.cache_dir, use_cache, settings.vocabulary_key())
    index = _INDEXES.get(key)
    if index is None:
        # Without a project marker the cache goes where the run started (as ruff's does),
        # not into every directory of loose files; keys hold the root, so roots never mix.
        directory = origin.cache_dir or (root if marked else Path.cwd()) / DIRECTORY_NAME
        cache = Cache.at(directory) if use_cache else None
        index = _INDEXES[key] = ProjectIndex(root, settings, cache)
    return index


def externals_for(module: cst.Module, settings: Settings) -> Optional[Externals]:
    """What the imports of the linted ``module`` bind, when ``settings.origin`` says where it lives."""
    origin = settings.origin
    if origin is None:
        return None
    index = index_for(origin, settings)
    return index.externals(Path(os.path.abspath(origin.path)), _iter_imports(module), module.code)
