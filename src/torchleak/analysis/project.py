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
``FIXPOINT_ROUNDS`` rounds). Summaries follow imports at most ``MAX_IMPORT_LEVELS`` modules
deep from the linted file; a summary that reached that bound is kept under the level it was
made at, so that a file's findings never depend on what the same process linted before. Summaries are cached on disk (``torchleak.cache``) under the
``modules`` namespace, each with the size and modification time of every file it was
computed from, so that a second run reads JSON instead of parsing, and an edit to any of
those files recomputes it. A new file that would now satisfy an import which resolved to
nothing before is not noticed until one of those files changes (or with ``--no-cache``).
"""

from __future__ import annotations

import ast
import functools
import io
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Final, Optional, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from torchleak.analysis.facts import FileFacts, Function
from torchleak.analysis.names import dotted, method_on_self
from torchleak.analysis.components import Partition, partition, segment_at
from torchleak.analysis.prefilter import Segment, all_segments, called_under_no_grad, is_no_grad_block, computes_what_it_keeps, plan
from torchleak.analysis.torch_knowledge import PER_BATCH_NAMES
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
from torchleak.analysis.values import CLASS_UNION, Kind, State, Value, classes_of
from torchleak.cache import Cache, cache_directory, enabled_by_environment, find_root, fingerprint  # noqa: F401 (find_root: re-exported)
from torchleak.parsing import parse_module

#: A directory holding one of these is a project's root (as ruff and mypy decide it).
#: Bumped when what a module summary holds changes, so that older cache entries are not read.
SCHEMA: Final = 21
#: Larger modules are not summarised (a bound on cold-cache cost): of 6,645 Python files in 86
#: public training repositories, 17 exceed 80 KB (timm's model zoo files, mmengine's runner,
#: detectron2's category tables); in the pinned corpus of libraries 104 files do, and
#: summarising them and what they import took half of the time of linting 60 of its files
#: with the flake8 plugin (58 s of CPU at 150 KB, 32 s at 80 KB).
MAX_SUMMARISED_BYTES: Final = 80_000
#: Import cycles: rounds of summarising their modules before giving up on a fixpoint.
FIXPOINT_ROUNDS: Final = 3
#: The most modules one file's imports may make the index read (a bound on cold-cache cost).
MAX_MODULES: Final = 300
#: How many modules deep summaries follow imports from the linted file: a module's summary
#: made this many imports away treats its own imports as unknown, as third-party ones (one
#: annotation naming transformers' ``PreTrainedConfig`` summarised 309 modules, down to 19
#: imports away, for a file that calls none of them).
MAX_IMPORT_LEVELS: Final = 3
#: Re-exports followed through at most this many ``__init__.py`` files.
MAX_REEXPORT_DEPTH: Final = 8
_NAMESPACE: Final = "modules"
#: Texts and ``ast`` trees of the modules read last, kept for their summaries.
_KEPT_TREES: Final = 8
#: Importers whose summaries are read to learn what they backward (a bound on cold-cache cost).
MAX_IMPORTERS: Final = 20
#: Files of a project scanned for importers (beyond, importers stay unknown).
MAX_PROJECT_FILES: Final = 5000
#: A method name more classes of the project define (beyond this) resolves to none of them.
MAX_METHOD_OWNERS: Final = 4
_SKIPPED_FOLDERS: Final = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"})


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


@functools.lru_cache(maxsize=1 << 16)  # (a large project asks for tens of thousands)
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


def _package_binds(init: Path, name: str) -> bool:
    """A package's ``__init__.py`` binds ``name`` itself (imports it from one of its modules,
    defines or assigns it), so ``from package import name`` gets that, not the submodule."""
    if init.name != "__init__.py":
        return False
    try:
        stat = init.stat()
    except OSError:
        return False
    return name in _names_bound_by(str(init), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _names_bound_by(path: str, _size: int, _mtime_ns: int) -> frozenset[str]:
    """The names a package's ``__init__.py`` binds from its modules (``from .mod import a, b
    as c``), by ``def``/``class`` or by assignment; keyed by size and mtime as the caches are."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module is not None:
            names.update(alias.asname or alias.name for alias in statement.names if alias.name != "*")
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(target.id for target in statement.targets if isinstance(target, ast.Name))
    return frozenset(names)


#: ``defaultdict(AverageMeter)``, ``partial(Meter, ...)``: a class handed to a factory that builds
#: its instances (a use of its import, as a call is).
_FACTORY_CALL: Final = r"\b(?:defaultdict|partial)\(\s*"
#: ``isinstance(self.sampler, `` before a class's name: the branch it guards calls the class's
#: methods on the object (``_Walker._narrowed_to_class``), so the class is a use of its import.
_NARROWING_CALL: Final = r"\bisinstance\(\s*[\w.]+\s*,\s*"
#: How many functions of a helper's own module ``fixed_in_helper`` follows up to the one that
#: another module calls (a method calling a method calling the one that keeps).
_OWN_CALLERS_FOLLOWED: Final = 3


class _Uses:
    """Which names a module's text calls, reads an attribute of, names as a base or annotates
    with: one scan of the text for all its imports (a pattern per import costs a pass over the
    text each)."""

    # (``(?=(\w+))\1`` matches a whole word without backtracking into it: an atomic group
    # before Python 3.11, about twice as fast on a large project's text)
    _ACCESSED = re.compile(r"\b(?=(\w+))\1\s*[(.]")
    #: ``(meter: Meter`` or ``, meter: "Meter"``: a parameter's annotation.
    _ANNOTATIONS = re.compile(r"[(,]\s*\*{0,2}\w+\s*:\s*[\"']?(\w+)\b")
    _BASES = re.compile(r"^[ \t]*class\s+\w+\s*\(([^)]*)", re.MULTILINE)
    _FACTORIES = re.compile(_FACTORY_CALL + r"(\w+)")
    _NARROWED = re.compile(_NARROWING_CALL + r"(\w+)\s*\)")

    def __init__(self, source: Union[str, Callable[[], str]]) -> None:
        self._text = source
        self._named: Optional[frozenset[str]] = None

    @property
    def _source(self) -> str:
        if not isinstance(self._text, str):
            self._text = self._text()  # the linted module's code costs a codegen: made when needed
        return self._text

    def __call__(self, local: str) -> bool:
        if "." in local or not local.isidentifier():
            return _uses(self._source, local)
        if self._named is None:
            source = self._source
            bases = (word for written in self._BASES.findall(source) for word in re.findall(r"\w+", written))
            self._named = frozenset((*self._ACCESSED.findall(source), *self._ANNOTATIONS.findall(source), *bases, *(self._FACTORIES.findall(source) if "defaultdict(" in source or "partial(" in source else ()),
                *(self._NARROWED.findall(source) if "isinstance(" in source else ()),
            ))
        return local in self._named


def _uses(source: str, local: str) -> bool:
    """Whether ``source`` calls ``local``, reads an attribute of it, names it as a base, or
    annotates a parameter with it (``meter: AverageMeter``: its methods are then followed)."""
    name = re.escape(local)
    return re.search(
        rf"\b{name}\s*[(.]|[(,]\s*\*{{0,2}}\w+\s*:\s*[\"']?{name}\b|^[ \t]*class\s+\w+\s*\([^)]*\b{name}\b|{_FACTORY_CALL}{name}\b",
        source, re.MULTILINE,
    ) is not None


#: An import statement in either tree: ``(None, level, [(name, asname)])`` for ``import a.b as
#: c``; ``(base, level, names)`` for ``from base import ...`` with ``names`` None for ``*``.
_ImportSpec = tuple[Optional[str], int, Optional[list[tuple[str, Optional[str]]]]]


def _bindings_of(specs: Iterator[_ImportSpec], file: Path, root: Path, uses: Callable[[str], bool]) -> list[ImportBinding]:
    directory, root_text = str(file.parent), str(root)
    own = _relative(file, root)
    found: list[ImportBinding] = []
    for base, level, names in specs:
        if base is None:  # ``import a.b [as c]``
            for name, asname in names or ():
                module = _module_file(name, directory, root_text, 0)
                if module is None or module == own:
                    continue
                local = asname or name
                found.append(ImportBinding(local, module, None, uses(local)))
            continue
        if names is None:
            module = _module_file(base, directory, root_text, level)
            if module is not None and module != own:
                found.append(ImportBinding("*", module, "*"))
            continue
        for imported, asname in names:
            local = asname or imported
            submodule = _module_file(f"{base}.{imported}" if base else imported, directory, root_text, level)
            module = _module_file(base, directory, root_text, level)
            if submodule is not None and submodule != own and not (
                # (``from transformer import Translator`` after the package's own ``from
                # .Translator import Translator``: Python gives the package's name, the class)
                module is not None and module != own and _package_binds(root / module, imported)
            ):
                found.append(ImportBinding(local, submodule, None, uses(local)))
                continue
            if module is not None and module != own:
                found.append(ImportBinding(local, module, imported, uses(local)))
    return found


def import_bindings(statements: Iterator[cst.CSTNode], file: Path, root: Path, source: Union[str, Callable[[], str], None]) -> list[ImportBinding]:
    """The bindings of the import statements among ``statements`` that reach project modules;
    ``source`` (the importing module's text, or what makes it) tells which of them the code
    uses (None: all count as used)."""

    def specs() -> Iterator[_ImportSpec]:
        for statement in statements:
            if type(statement) is cst.Import:
                yield None, 0, [(dotted(alias.name) or "", _asname(alias)) for alias in statement.names]
            elif type(statement) is cst.ImportFrom:
                base = dotted(statement.module) if statement.module is not None else ""
                if base is None:
                    continue
                if isinstance(statement.names, cst.ImportStar):
                    yield base, len(statement.relative), None
                else:
                    yield base, len(statement.relative), [(dotted(alias.name) or "", _asname(alias)) for alias in statement.names]

    return _bindings_of(specs(), file, root, _Uses(source) if source is not None else (lambda local: True))


def _asname(alias: cst.ImportAlias) -> Optional[str]:
    return alias.asname.name.value if alias.asname is not None and type(alias.asname.name) is cst.Name else None


def _ast_bindings(tree: ast.Module, file: Path, root: Path, source: str) -> list[ImportBinding]:
    """``import_bindings`` read from an ``ast`` tree (every import, nested ones included, in
    source order as libcst's walk meets them)."""
    def specs() -> Iterator[_ImportSpec]:
        for node in _ast_imports(tree.body):
            if isinstance(node, ast.Import):
                yield None, 0, [(alias.name, alias.asname) for alias in node.names]
            elif len(node.names) == 1 and node.names[0].name == "*":
                yield node.module or "", node.level, None
            else:
                yield node.module or "", node.level, [(alias.name, alias.asname) for alias in node.names]

    return _bindings_of(specs(), file, root, _Uses(source))


#: Clauses holding statements: ``except`` and (Python 3.10+) ``case``.
_CLAUSES: tuple[type, ...] = (ast.ExceptHandler, *(getattr(ast, name) for name in ("match_case",) if hasattr(ast, name)))


def _ast_imports(body: list[ast.stmt]) -> Iterator[Union[ast.Import, ast.ImportFrom]]:
    """Every import statement of ``body``, nested ones included, in source order (statements
    only: an import is never inside an expression)."""
    stack: list[ast.stmt] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        nested: list[ast.stmt] = []
        for name in ("body", "orelse", "handlers", "finalbody", "cases"):
            part = getattr(node, name, None)
            if isinstance(part, list):
                for item in part:
                    if isinstance(item, _CLAUSES):
                        nested.extend(getattr(item, "body", ()))
                    elif isinstance(item, ast.stmt):
                        nested.append(item)
        stack.extend(reversed(nested))


def _iter_imports(body: Union[cst.Module, cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every import statement of a module, nested ones included (``try: import ...``)."""
    from torchleak.analysis.flow import iter_statements

    statements = body.body if type(body) is cst.Module else [body]
    for statement in iter_statements(statements):
        if type(statement) is cst.Import or type(statement) is cst.ImportFrom:
            yield statement


# --------------------------------------------------------------------------- outlines
@dataclass(frozen=True)
class _ClassOutline:
    """A top-level class as ``ast`` shows it: its own methods and its bases as written."""

    methods: frozenset[str]
    #: Each positional base as a dotted name (``nn.Module``), None when it is not one.
    bases: tuple[Optional[str], ...]


@dataclass
class _Outline:
    """What a module defines at its top level and imports, read with ``ast`` (several times
    cheaper than libcst): enough to follow re-exports, and to know which of its names could
    need its summary at all, without summarising it."""

    bindings: list[ImportBinding]
    functions: frozenset[str]
    classes: dict[str, _ClassOutline]
    #: (size, mtime_ns) of the file it was read from.
    stamp: Optional[tuple[int, int]]
    #: The text and tree it was read from (handed to the index's short memory, then dropped).
    source: Optional[str] = None
    tree: Optional[ast.Module] = None

    @property
    def used(self) -> list[ImportBinding]:
        return [binding for binding in self.bindings if binding.used]

    def to_dict(self) -> dict[str, object]:
        return {
            "bindings": [[b.local, b.module, b.symbol, b.used] for b in self.bindings],
            "functions": sorted(self.functions),
            "classes": {name: [sorted(info.methods), list(info.bases)] for name, info in self.classes.items()},
            "stamp": list(self.stamp) if self.stamp is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> _Outline:
        bindings = [ImportBinding(str(local), str(module), None if symbol is None else str(symbol), bool(used)) for local, module, symbol, used in data["bindings"]]
        classes = {
            str(name): _ClassOutline(frozenset(str(method) for method in methods), tuple(None if base is None else str(base) for base in bases))
            for name, (methods, bases) in data["classes"].items()
        }
        stamp = data["stamp"]
        return cls(bindings, frozenset(str(name) for name in data["functions"]), classes, None if stamp is None else (int(stamp[0]), int(stamp[1])))


#: A name a call names: ``append`` in ``self.memory.append(``, ``log`` in ``log(`` (matched
#: whole, as ``_Uses._ACCESSED``).
_CALLED_NAME: Final = re.compile(r"\b(?=(\w+))\1\s*\(")


def _ast_dotted(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _ast_dotted(node.value)
        return f"{head}.{node.attr}" if head is not None else None
    return None


def _read_outline(path: Path, root: Path) -> _Outline:
    stamp = fingerprint(path)
    try:
        source = path.read_bytes().decode("utf-8-sig")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, RecursionError, ValueError, MemoryError):
        return _Outline([], frozenset(), {}, stamp)
    functions = frozenset(node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    classes = {
        node.name: _ClassOutline(
            frozenset(member.name for member in node.body if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))),
            tuple(_ast_dotted(base) for base in node.bases),
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    return _Outline(_ast_bindings(tree, path, root, source), functions, classes, stamp, source, tree)


_IMPORT_LINE: Final = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n]*", re.MULTILINE)
_WORD: Final = re.compile(r"\w+")
#: An indented ``def`` (a method, or a nested function the outline then rules out).
_METHOD_DEF: Final = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)

#: Methods that return the module they are called on (``decoder = decoder.to(device)``).
_RETURNS_SELF: Final = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"})


def _methods_called_with_grad(
    tree: ast.Module, classes: Mapping[str, Optional[str]], modules: set[str], *, in_loops: bool = False
) -> set[str]:
    """``Class.method`` for each call ``x.method(...)`` in ``tree`` outside no-grad code (and,
    with ``in_loops``, inside a ``for`` or ``while`` loop), where ``x`` holds an instance the
    module builds of one of ``classes`` (local name -> the name in the defining module) or of a
    class reached through an imported module (``model.Decoder``)."""

    def built_class(value: ast.expr, instances: Mapping[str, str]) -> Optional[str]:
        while isinstance(value, ast.Call):
            func = value.func
            name = _ast_dotted(func) or ""
            if name in classes:
                return classes[name] or name
            head, _, last = name.rpartition(".")
            if head in modules:
                return last
            if isinstance(func, ast.Attribute) and func.attr in _RETURNS_SELF:
                receiver = _ast_dotted(func.value) or ""
                if receiver in instances:
                    return instances[receiver]
                value = func.value
                continue
            return None
        return None

    instances: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            # ``def offpolicy_trainer(policy: BasePolicy, ...)``: handed an instance of the class
            annotated = _ast_dotted(node.annotation) or ""
            if annotated in classes:
                instances[node.arg] = classes[annotated] or annotated
            elif annotated.rpartition(".")[0] in modules:
                instances[node.arg] = annotated.rpartition(".")[2]
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            cls = built_class(node.value, instances)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                key = _ast_dotted(target)
                if cls is not None and key is not None:
                    instances[key] = cls
    if not instances:
        return set()
    no_grad_functions = called_under_no_grad(tree)
    found: set[str] = set()
    stack: list[tuple[ast.AST, bool, bool]] = [(tree, False, False)]
    while stack:
        node, no_grad, looped = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            looped = False  # (a function defined in a loop runs when it is called)
            no_grad = no_grad or node.name in no_grad_functions
        no_grad = no_grad or is_no_grad_block(node)
        if not no_grad and (looped or not in_loops) and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = _ast_dotted(node.func.value) or ""
            # (``model.train()`` switches a mode; ``learner.train(batch, t)`` is a method of the class)
            switch = node.func.attr in _RETURNS_SELF and len(node.args) + len(node.keywords) <= 1
            if receiver in instances and not switch:
                found.add(f"{instances[receiver]}.{node.func.attr}")
        elif not no_grad and (looped or not in_loops) and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in instances:
            found.add(f"{instances[node.func.id]}.__call__")  # ``penalty(d, f_s, f_t)`` runs ``__call__``
        looped = looped or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((child, no_grad, looped) for child in ast.iter_child_nodes(node))
    return found


def _an_objects_namespace(node: ast.expr) -> bool:
    """``obj.__dict__`` or ``vars(obj)``: a plain dict of an object's attributes."""
    if isinstance(node, ast.Attribute):
        return node.attr == "__dict__"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"


@dataclass(frozen=True)
class _Constructions:
    """What a module's calls show of the objects it builds and passes on (one walk of its ast)."""

    #: (``model``, ``Model``) for each ``model = Model(...)``, in the walk's order.
    built: tuple[tuple[str, str], ...]
    #: (``TrainManager``, (``model``, ``""``), ((``ema``, ``ema``),)) for each call with
    #: arguments: the callee, each positional argument's dotted name ("" when it has none), and
    #: each keyword with its argument's.
    calls: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]], ...]


def _constructions(tree: ast.Module) -> _Constructions:
    built: list[tuple[str, str]] = []
    calls: list[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            built_by = node.value
            while (
                isinstance(built_by.func, ast.Attribute) and built_by.func.attr in _RETURNS_SELF and isinstance(built_by.func.value, ast.Call)
            ):
                built_by = built_by.func.value  # ``Model(cfg).to(device)`` builds a Model
            func = _ast_dotted(built_by.func)
            if func:
                built.extend((key, func) for key in map(_ast_dotted, node.targets) if key is not None)
        if isinstance(node, ast.Call) and (node.args or node.keywords):
            func = _ast_dotted(node.func)
            if func:
                calls.append((
                    func,
                    tuple("" if isinstance(a, ast.Starred) else _given_name(a) for a in node.args),
                    tuple((k.arg, _given_name(k.value)) for k in node.keywords if k.arg is not None),
                ))
    return _Constructions(tuple(built), tuple(calls))


#: How ``_given_name`` names an object built in the argument itself (``Trainer(Model())``).
_BUILT_HERE: Final = "()"


def _given_name(node: ast.expr) -> str:
    """The dotted name an argument passes: ``sampler`` for ``sampler``, and for ``sampler if
    args.hard_mining else None`` (an optional object, given or not); ``Model()`` for an object
    built in place (``Trainer(Model())``, ``Model(cfg).to(device)``); "" otherwise."""
    if isinstance(node, ast.IfExp):
        none = [isinstance(branch, ast.Constant) and branch.value is None for branch in (node.body, node.orelse)]
        if none == [False, True]:
            node = node.body
        elif none == [True, False]:
            node = node.orelse
    if isinstance(node, ast.Call):
        while isinstance(node.func, ast.Attribute) and node.func.attr in _RETURNS_SELF and isinstance(node.func.value, ast.Call):
            node = node.func.value
        built = _ast_dotted(node.func)
        return built + _BUILT_HERE if built else ""
    return _ast_dotted(node) or ""


def _arguments_of_project_classes(
    constructions: _Constructions, bindings: Sequence[ImportBinding], module: str, functions: Mapping[str, Sequence[str]] = {}
) -> set[tuple[str, int, str]]:
    """(``C.__init__``, parameter position, class key) for each construction in ``tree`` of a
    class ``C`` that ``module`` defines (``TrainManager(model, cfg)``) given an instance the tree
    builds of a class of the project (``model = Model(...)`` with ``Model`` from ``model.py``):
    what the object keeps on ``self`` is then known by its class. The same for a method called
    on an instance the tree builds of such a class (``agent.update(buffer)``: ``C.update``). For a call of one of the
    module's top-level ``functions`` (name -> parameter names), (name, position, class key),
    keywords included: ``train_one_epoch(model, ..., ema=ema)`` with ``ema = utils.ModelEMA(model)``
    (used only where the body itself shows nothing of the parameter)."""
    symbols = {b.local: (b.module, b.symbol) for b in bindings if b.symbol not in (None, "*")}
    modules = {b.local: b.module for b in bindings if b.symbol is None}

    def project_class(name: str) -> Optional[tuple[str, str]]:
        if name in symbols:
            found, symbol = symbols[name]
            return (found, symbol) if symbol else None
        head, _, last = name.rpartition(".")
        return (modules[head], last) if head in modules else None

    instances: dict[str, tuple[str, str]] = {}
    for key, func in constructions.built:
        built = project_class(func)
        if built is not None:
            instances[key] = built
    for _func, arguments, keywords in constructions.calls:
        for argument in (*arguments, *(given for _, given in keywords)):
            if argument.endswith(_BUILT_HERE):
                built = project_class(argument[: -len(_BUILT_HERE)])
                if built is not None:
                    instances[argument] = built
    if not instances:
        return set()
    found: set[tuple[str, int, str]] = set()
    for func, arguments, keywords in constructions.calls:
        callee = project_class(func)
        owner, _, method = func.rpartition(".")
        if callee is None and owner in instances and instances[owner][0] == module:
            # ``agent.update(replay_buffer, logger, step)`` on an instance of the module's class
            # built here: its method is given the instances built here too
            for position, argument in enumerate(arguments):
                given = instances.get(argument) if argument else None
                if given is not None:
                    found.add((f"{instances[owner][1]}.{method}", position + 1, class_key(*given)))
            continue
        if callee is None or callee[0] != module:
            continue
        parameters = functions.get(callee[1])
        for position, argument in enumerate(arguments):
            given = instances.get(argument) if argument else None
            if given is not None:
                found.add((callee[1], position, class_key(*given)) if parameters is not None else (f"{callee[1]}.__init__", position + 1, class_key(*given)))
        if parameters is None:
            continue
        for name, argument in keywords:
            given = instances.get(argument) if argument else None
            if given is not None and name in parameters:
                found.add((callee[1], list(parameters).index(name), class_key(*given)))
    return found


# --------------------------------------------------------------------------- the index
@dataclass
class _Entry:
    """A module's summary, and every file it was computed from: path -> (size, mtime_ns)."""

    summary: ModuleSummary
    deps: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: How many imports deep the summaries it read go (0: it read none).
    height: int = 0
    #: It read a summary beyond ``MAX_IMPORT_LEVELS``: it holds only at the level it was made at.
    bounded: bool = False

    def holds_at(self, level: int) -> bool:
        """Whether it is what a summary made at ``level`` would be (one made further from the
        linted file may have stopped at the bound that a nearer one does not reach)."""
        return not self.bounded and level + self.height < MAX_IMPORT_LEVELS


@dataclass
class _Frame:
    """A module being summarised (Tarjan's algorithm, run as the analyses ask for modules)."""

    module: str
    depth: int
    #: The lowest depth of a module still being summarised whose summary so far this one read.
    low: int
    summary: ModuleSummary
    deps: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Another module read this one's summary before it was finished (a cycle).
    read_early: bool = False
    #: A module needed for it was not summarised (the bound on modules): not written to disk.
    truncated: bool = False
    height: int = 0
    #: A summary it needed was beyond ``MAX_IMPORT_LEVELS`` (``_Entry.bounded``).
    bounded: bool = False

    def read(self, entry: Union[_Entry, _Frame]) -> None:
        """This module's summary depends on ``entry`` (a summary, or one being made, one
        import deeper)."""
        self.deps.update(entry.deps)
        self.height = max(self.height, entry.height + 1)
        self.bounded = self.bounded or entry.bounded


@dataclass
class _Parts:
    """A module cut into components (``analysis/components.py``): the top-level statements a
    function or class of it is summarised from, when an importer asks for that name only."""

    #: (not the text or tree: a process may cut hundreds of modules; ``_text_and_tree`` reads them)
    segments: tuple[Segment, ...]
    partition: Partition
    #: A function or class defined once, at the top level -> its component (an index).
    component_of: dict[str, int]
    #: Each component's functions and classes (each name's summary is the component's).
    names: list[list[str]]


#: ``utils.py#AverageMeter``: the summary of the part of ``utils.py`` that ``AverageMeter``
#: needs (its component), as a key of the index's tables and of the cache.
_PART: Final = "#"


def _module_of(key: str) -> str:
    return key.partition(_PART)[0]


def _levelled(key: str, level: int) -> str:
    """The cache key of ``key``'s summary made at ``level`` that holds only there."""
    return f"{key}{_PART}@{level}"


class ProjectIndex:
    """The summaries of one project's modules, for the files of that project being linted.

    Everything is computed on demand: the linted file's analysis asks for the names it calls,
    constructs or derives from (``_LazyNames``), and only the modules that define them are
    summarised; a module a name is only re-exported through is read with ``ast``, never
    summarised. A summary's own imports are resolved the same way while it is computed.
    """

    def __init__(self, root: Path, settings: Settings, cache: Optional[Cache]) -> None:
        self.root = root
        #: Summaries are computed without an origin (no recursion into the index from flow).
        self.settings = replace(settings, origin=None)
        self.cache = cache
        self._entries: dict[str, _Entry] = {}
        #: Summaries that hold only at the level they were made at (``_Entry.bounded``).
        self._bounded: dict[tuple[str, int], _Entry] = {}
        #: Finished members of a cycle whose first module is still being summarised.
        self._pending: dict[str, _Frame] = {}
        self._outlines: dict[str, _Outline] = {}
        #: Cache blobs read this run (one read per module per process), by module.
        self._blobs: dict[str, Optional[dict[str, Any]]] = {}
        self._active: list[_Frame] = []
        self._open: dict[str, _Frame] = {}
        self._computed = 0
        self._texts: dict[str, tuple[str, ast.Module]] = {}
        self._stamps: dict[str, Optional[tuple[int, int]]] = {}
        self._read_again: set[str] = set()
        self._shapes: dict[tuple[str, str, int, bool], Optional[frozenset[tuple[str, str]]]] = {}
        self._defines: dict[tuple[str, str, str], bool] = {}
        self._sources: Optional[list[tuple[str, str]]] = None
        self._imported_words: Optional[dict[str, list[str]]] = None
        self._method_files: Optional[dict[str, list[str]]] = None
        self._calls_by_word: Optional[dict[str, list[str]]] = None
        self._siblings: dict[tuple[str, str], list[str]] = {}
        self._key_suffix = f"|{root}|{SCHEMA}|{self.settings.vocabulary_key()}"
        self._calls_by_module: dict[str, dict[str, Counter[str]]] = {}
        self._analysed_importers: dict[str, Optional[FileFacts]] = {}
        self._prefiltered: dict[str, bool] = {}
        self._parts: dict[str, Optional[_Parts]] = {}
        self._source_of: Optional[dict[str, str]] = None
        self._constructions: dict[str, Optional[_Constructions]] = {}
        self._arguments_by_importers: dict[str, frozenset[tuple[str, int, str]]] = {}
        self._methods_by_importers: dict[tuple[str, bool], frozenset[str]] = {}

    # ----------------------------------------------------------------- public
    def externals(self, file: Path, statements: Iterator[cst.CSTNode], source: Union[str, Callable[[], str]]) -> Externals:
        """What the import statements of ``file`` (any of them, nested ones included) bind,
        and which of its functions' results the modules importing it backward. Nothing is
        summarised until the analysis asks for a name; ``source`` (or what makes it) is read
        only then, to tell which imports the code uses."""
        self._computed = 0
        bindings = import_bindings(statements, file, self.root, None)
        externals = _LazyExternals(_LazyNames(self, bindings, _Uses(source)), _ClassRegistry(self))
        relative = _relative(file, self.root)
        if relative is not None:
            externals.backwarded_by_importers = _Lazy(lambda: self._backwarded_by_importers(relative))
            externals.called_with_grad_by_importers = _Lazy(lambda: self._called_with_grad_by_importers(relative))
            externals.argument_classes_by_importers = _Lazy(lambda: self._argument_classes_by_importers(relative))
            externals.called_per_batch_by_importers = _Lazy(lambda: self._called_with_grad_by_importers(relative, in_loops=True))
            externals.path = relative
            externals.importer_facts = functools.cache(lambda: self._importer_facts(relative))  # one analysis per linted file
            externals.fixed_in_helper = self.fixed_in_helper
            externals.importers_calling = self.importers_calling
            externals.importers_one_further = self.importers_one_further
            folder = PurePosixPath(relative).parent.as_posix()
            externals.directory = "" if folder == "." else folder + "/"
        return externals

    def overridden_hooks(self, tree: ast.Module, source: str, file: Path) -> frozenset[str]:
        """Methods of the file's classes that a base class of another module of the project may
        run once per batch (SpeechBrain's ``Brain.fit_batch`` calling ``self.compute_objectives``
        in a module that backwards): for the pre-filter, which keeps them as it keeps
        ``training_step``; the analysis then decides from the base's summary."""
        classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.bases]
        if not classes:
            return frozenset()
        bindings = _ast_bindings(tree, file, self.root, source)
        found: set[str] = set()
        for definition in classes:
            methods = {member.name for member in definition.body if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for base in definition.bases:
                if not isinstance(base, ast.Name):
                    continue
                for binding in bindings:
                    if binding.local != base.id or binding.symbol in (None, "*"):
                        continue
                    read = self._text_and_tree(binding.module)
                    if read is None or ".backward(" not in read[0]:
                        continue  # (a base that never trains runs no hook per batch)
                    found |= methods & _called_on_self_in_loops(read[1])
        return frozenset(found)

    def helper_keepers(self, tree: ast.Module, source: str, file: Path) -> frozenset[str]:
        """Methods of the file's classes that keep on ``self`` what they compute from what they
        are given (a meter's ``self.loss_sum += F.cross_entropy(logits, y)``) and that one call in
        the whole project runs, from another module: for the pre-filter, which keeps them so that
        the module reports at that line, where the fix goes (``fixed_in_helper``)."""
        try:
            module = file.relative_to(self.root).as_posix()
        except ValueError:
            return frozenset()
        found: set[str] = set()
        for definition in tree.body:
            if not isinstance(definition, ast.ClassDef):
                continue
            for member in definition.body:
                if (
                    isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.name.startswith("__")
                    and computes_what_it_keeps(tree, f"{definition.name}.{member.name}")
                ):
                    if self.fixed_in_helper(f"{module}:{definition.name}.{member.name}"):
                        found.add(member.name)
        return frozenset(found)

    def dependencies(self) -> dict[str, tuple[int, int]]:
        """The project files, with their (size, mtime), that the findings of the file linted
        last may depend on: every file this process has read an outline or a summary of so far
        (a superset, since answers are memoised across the files one process lints), importers
        included. A file that starts importing the linted one is not among them (as for the
        summaries' cache: noticed when either file changes); listing every file of the project
        instead made each entry of a large library hundreds of kilobytes. The findings cache
        checks them before reusing a result."""
        stamps = {module: outline.stamp for module, outline in self._outlines.items() if outline.stamp is not None}
        for entry in [*self._entries.values(), *self._bounded.values()]:
            stamps.update(entry.deps)
        return stamps

    def _importing(self, module: str) -> Iterator[tuple[str, _Outline]]:
        """The project's modules whose imports resolve to ``module``, with their outlines; and
        those importing its names through a package's ``__init__.py`` that re-exports them
        (``from transformer import ScheduledOptim``), with those bindings pointed at ``module``."""
        for importer in self._importers(module):
            outline = self._outline(importer)
            if not any(binding.module == module for binding in outline.bindings):
                continue
            yield importer, outline
            if PurePosixPath(importer).name != "__init__.py":
                continue
            exported = {b.local: b.symbol for b in outline.bindings if b.module == module and b.symbol not in (None, "*")}
            if any(b.module == module and b.symbol == "*" for b in outline.bindings):
                # (``from .base import *`` in the package: ``from models import BaseVAE`` is base's)
                exported.update((name, name) for name in self._public_names(module))
            for outer in self._importers(importer):
                if outer == module:
                    continue
                outer_outline = self._outline(outer)
                through = [
                    replace(b, module=module, symbol=exported[b.symbol])
                    for b in outer_outline.bindings if b.module == importer and b.symbol in exported
                ]
                if through:
                    yield outer, replace(outer_outline, bindings=[*outer_outline.bindings, *through])

    def _reaching(self, module: str) -> Iterator[tuple[str, _Outline]]:
        """``_importing``, and the modules importing a base class of ``module``'s classes from
        its own module: they call methods on objects declared as the base (``vae_model:
        BaseVAE``), which run the overrides ``module`` defines."""
        seen: set[str] = set()
        for base in [module, *self._base_modules(module)]:
            for importer, outline in self._importing(base):
                if importer != module and importer not in seen:
                    seen.add(importer)
                    yield importer, outline

    def _backwarded_by_importers(self, module: str) -> frozenset[str]:
        """Functions of ``module`` whose results a module importing it backwards."""
        found: set[str] = set()
        prefix = module + ":"
        for importer, _ in self._importing(module):
            backwarded = self._summary(importer).backwarded
            found.update(key[len(prefix):] for key in backwarded if key.startswith(prefix))
        return frozenset(found)

    def fixed_in_helper(self, key: str, depth: int = 0, keeper: str = "") -> bool:
        """Whether a leak through ``key`` (``utils.py:Logger.log``, a helper keeping what it is
        given in one place) is reported in the helper rather than at its call: one call in the
        whole project names it (its module and the modules importing it, counted by name: no
        fewer than there are), and its module passes the pre-filter (a module that does not is
        never analysed when linted, so it could not report it; the caller does, as for any
        helper). ``keeper``: the function of the same module that ``key`` runs, which keeps it
        (when following its one caller up)."""
        module, _, name = key.partition(":")
        called = name.rsplit(".", 1)[-1]
        by_name: Counter[str] = self._calls_by_name(module).get(called, Counter())
        siblings = self._siblings_calling(module, called) if called != "__call__" else []
        own_only, own_caller = self._own_module_caller(key)
        if own_only:
            # no importer the index finds calls it: its module reports it when the one call of
            # its own module is in a function that is itself fixed there (the base class's
            # ``update_with_local_losses`` calling the subclass's ``update_with_all_losses``)
            return own_caller is not None and depth < _OWN_CALLERS_FOLLOWED and self.fixed_in_helper(own_caller, depth + 1, keeper or name)
        read_whole = {module, *siblings, *self._base_modules(module)}  # (their calls are counted in by_name, from their trees)
        if called != "__call__" and any(
            caller not in by_name and caller not in read_whole
            for caller in self._files_calling().get(called, ())
        ):
            # a module that does not import it calls something of that name (an object handed
            # to it: ``self.memory.append`` in trainer.py, the memory built in main.py): the
            # helper's module cannot see that call, so the caller reports it
            return False
        read = self._text_and_tree(module)
        if read is None or not (self._passes_prefilter(module, *read) or computes_what_it_keeps(read[1], keeper or name)):
            # (a module without a loop is analysed when the method keeps on ``self`` what it
            # computes from what this one call gives it: ``helper_keepers``)
            return False
        if sum(by_name.values()) != 1 or siblings or called == "__call__":  # (``stopper(loss)`` names no method)
            # more than one call names it: count those the importers' (and siblings') analyses
            # resolve to it, and those of its own module, analysing importers only until a
            # second call is found (a library module may have a hundred importers)
            own = self._own_calls(module, name, by_name[module])
            resolved: set[int] = set()
            for facts in self._importer_analyses_calling(key):
                if own + len(resolved) > 1:
                    return False
                resolved.update(site.call_id for site in facts.call_sites if site.callee == key)
            if own + len(resolved) != 1:
                return False
        return True

    def _files_calling(self) -> dict[str, list[str]]:
        """Each name a call names in the project's text (``x.append(``, ``log(``) -> the files
        with such a call (one pass over the project)."""
        if self._calls_by_word is None:
            self._calls_by_word = self._files_by_word(lambda text: set(_CALLED_NAME.findall(text)))
        return self._calls_by_word

    def _own_module_caller(self, key: str) -> tuple[bool, Optional[str]]:
        """Whether no other module calls ``key`` by name (importers and siblings counted; a
        ``__call__`` names no method); if so, the key of the function of its own module that
        makes the one call there running it, or None when there are several, or none."""
        module, _, name = key.partition(":")
        called = name.rsplit(".", 1)[-1]
        by_name: Counter[str] = self._calls_by_name(module).get(called, Counter())
        if called == "__call__" or not set(by_name) <= {module} or self._siblings_calling(module, called):
            return False, None
        if by_name[module] != 1:
            return True, None
        analysed = self._importer_analysis(module, self._outline(module))
        sites = [site for site in analysed.call_sites if site.callee == name] if analysed is not None else []
        if len({site.call_id for site in sites}) != 1 or sites[0].function.summary.key == name:
            return True, None
        return True, f"{module}:{sites[0].function.summary.key}"

    def _own_calls(self, module: str, name: str, by_name: int) -> int:
        """How many calls in ``module`` itself run its function ``name``, of the ``by_name``
        calls there that name it (``self.meters[k].update(v)`` in utils.py runs
        ``SmoothedValue.update``, not ``ModelEMA.update``): as the module's analysis resolves
        them, or all of them when it cannot be analysed."""
        if not by_name:
            return 0
        analysed = self._importer_analysis(module, self._outline(module))
        if analysed is None:
            return by_name
        return len({site.call_id for site in analysed.call_sites if site.callee == name})

    def _text_and_tree(self, module: str) -> Optional[tuple[str, ast.Module]]:
        """A project module's text and ``ast`` (kept from its outline when read before); None
        when it cannot be read or parsed."""
        kept = self._texts.get(module)
        if kept is not None:
            return kept
        try:
            source = (self.root / module).read_bytes().decode("utf-8-sig")
            return source, ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, RecursionError, ValueError, MemoryError):
            return None

    def _passes_prefilter(self, module: str, source: str, tree: ast.Module) -> bool:
        """Whether the pre-filter keeps any of ``module`` (memoised: a module linted is analysed
        only then)."""
        kept = self._prefiltered.get(module)
        if kept is None:
            kept = self._prefiltered[module] = bool(plan(source, tree, PER_BATCH_NAMES | self.settings.per_batch_methods, sys.maxsize).segments)
        return kept

    def importers_calling(self, key: str) -> list[FileFacts]:
        """The analyses of the modules importing ``key``'s module that call it by name (only
        those are analysed: a library module may have dozens of importers); all of them for a
        ``__call__``, which no call names."""
        return list(self._importer_analyses_calling(key))

    def _importer_analyses_calling(self, key: str, depth: int = 0) -> Iterator[FileFacts]:
        """``importers_calling``, analysed one at a time as they are asked for."""
        module, _, name = key.partition(":")
        called = name.rsplit(".", 1)[-1]
        callers: Counter[str] = self._calls_by_name(module).get(called, Counter())
        own_only, caller = self._own_module_caller(key) if depth < _OWN_CALLERS_FOLLOWED else (False, None)
        if own_only:
            # run only from its own module: the loops reach it through its one caller there
            if caller is not None:
                yield from self._importer_analyses_calling(caller, depth + 1)
            return
        for importer, outline in self._reaching(module):
            if importer in callers or called == "__call__":
                analysed = self._importer_analysis(importer, outline)
                if analysed is not None:
                    yield analysed
        if called != "__call__":
            for sibling in self._siblings_calling(module, called):
                analysed = self._importer_analysis(sibling, self._outline(sibling))
                if analysed is not None:
                    yield analysed

    def _siblings_calling(self, module: str, called: str) -> list[str]:
        """The modules that an importer of ``module`` imports, not importing ``module``
        themselves, whose text calls ``called`` (trainer.py, given the ``ExperienceReplay`` that
        main.py builds from memory.py, calling ``self.memory.append``): their analyses resolve
        the call through what the importer passes them."""
        known = self._siblings.get((module, called))
        if known is not None:
            return known
        importers = {importer for importer, _ in self._importing(module)}
        calling = set(self._files_calling().get(called, ()))
        found: list[str] = []
        for importer in sorted(importers):
            for binding in self._outline(importer).bindings:
                other = binding.module
                if not binding.used or binding.symbol == "*" and PurePosixPath(importer).name == "__init__.py":
                    continue  # an import unused, or re-exported (``from .resnet import *`` in a package), hands nothing over
                if other and other != module and other not in importers and other in calling and other not in found:
                    found.append(other)
        self._siblings[(module, called)] = found
        return found

    def _importer_analysis(self, importer: str, outline: _Outline) -> Optional[FileFacts]:
        """The analysis of a module importing a linted one, made once per process."""
        if importer not in self._analysed_importers:
            analysed = self._analysed(importer, outline)
            self._analysed_importers[importer] = analysed[2] if analysed is not None else None
        return self._analysed_importers[importer]

    def importers_one_further(self, key: str) -> list[FileFacts]:
        """The analyses of the modules importing the modules that call ``key`` by name (a loop
        one module further up, through a function of theirs: ``train.py`` calling
        ``agent.step`` of ``dqn.py``, which calls ``stats.add_loss`` of ``utils.py``)."""
        module = key.partition(":")[0]
        callers = {facts.externals.path for facts in self.importers_calling(key) if facts.externals is not None}
        found: dict[str, FileFacts] = {}
        for caller in sorted(callers):
            for outer, outline in self._importing(caller):
                if outer == module or outer in found or outer in callers:
                    continue
                analysed = self._importer_analysis(outer, outline)
                if analysed is not None:
                    found[outer] = analysed
        return list(found.values())

    def _calls_by_name(self, module: str) -> dict[str, Counter[str]]:
        """For each name a call names (``f(...)``, ``x.f(...)``), how many such calls each of
        ``module`` and the modules importing it makes (ast only, once per module)."""
        calls = self._calls_by_module.get(module)
        if calls is None:
            calls = {}
            # (a base class's module calling ``self.learn(batch)`` runs the override defined here)
            for owner in dict.fromkeys([module, *(importer for importer, _ in self._reaching(module)), *self._base_modules(module)]):
                tree = self._importer_tree(owner)
                for node in ast.walk(tree) if tree is not None else ():
                    if isinstance(node, ast.Call):
                        func = node.func
                        if isinstance(func, ast.Attribute) and _an_objects_namespace(func.value):
                            continue  # ``self.__dict__.update(kwargs)`` updates a dict, never a helper
                        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                        calls.setdefault(called, Counter())[owner] += 1
            self._calls_by_module[module] = calls
        return calls

    def _base_modules(self, module: str) -> list[str]:
        """The other modules of the project that define a base class (as written) of one of
        ``module``'s classes, found through ``module``'s imports and re-exports."""
        outline = self._outline(module)
        written = {(base or "").rsplit(".", 1)[-1] for cls in outline.classes.values() for base in cls.bases} - {""}
        found: list[str] = []
        for binding in outline.bindings:
            if binding.local in written and binding.symbol not in (None, "*") and binding.module:
                defining = self._defining_class(class_key(binding.module, binding.symbol)).rpartition(":")[0]
                if defining and defining != module and defining not in found:
                    found.append(defining)
        return found

    def _importer_facts(self, module: str) -> list[FileFacts]:
        """The analyses of the project's modules that import ``module`` (made on demand, not
        cached: only a helper's ``retain_graph=True`` with no per-batch caller in its own file
        asks for them)."""
        found: list[FileFacts] = []
        for importer, outline in self._importing(module):
            analysed = self._analysed(importer, outline)
            if analysed is not None:
                found.append(analysed[2])
        return found

    def _called_with_grad_by_importers(self, module: str, *, in_loops: bool = False) -> frozenset[str]:
        """Methods of ``module``'s classes (``DecoderRNN.sample``) that a module importing the
        class calls, on an instance it builds, with grad enabled (``sample.py`` calling
        ``decoder.sample(feature)`` outside ``torch.no_grad()``); with ``in_loops``, those it
        calls so inside a loop (``learner.train(batch)`` in ``main.py``'s loop over episodes)
        (memoised: every part of ``module`` summarised asks)."""
        known = self._methods_by_importers.get((module, in_loops))
        if known is not None:
            return known
        found: set[str] = set()
        for importer, outline in self._importing(module):
            classes = {b.local: b.symbol for b in outline.bindings if b.module == module and b.symbol not in (None, "*")}
            modules = {b.local for b in outline.bindings if b.module == module and b.symbol is None}
            if not classes and not modules:
                continue
            tree = self._importer_tree(importer)
            if tree is not None:
                found |= _methods_called_with_grad(tree, classes, modules, in_loops=in_loops)
        made = self._methods_by_importers[(module, in_loops)] = frozenset(found)
        return made

    def _argument_classes_by_importers(self, module: str) -> frozenset[tuple[str, int, str]]:
        """What the project's modules importing ``module`` pass to its classes and functions:
        instances of the project's classes they build (``_arguments_of_project_classes``;
        memoised, and each importer's constructions read once per process)."""
        known = self._arguments_by_importers.get(module)
        if known is not None:
            return known
        found: set[tuple[str, int, str]] = set()
        functions: Optional[dict[str, list[str]]] = None  # (read once, when an importer builds anything)
        for importer, outline in self._importing(module):
            if importer not in self._constructions:
                tree = self._importer_tree(importer)
                self._constructions[importer] = _constructions(tree) if tree is not None else None
            constructions = self._constructions[importer]
            if constructions is not None:
                if functions is None:
                    functions = self._function_parameters(module)
                found |= _arguments_of_project_classes(constructions, outline.bindings, module, functions)
        made = self._arguments_by_importers[module] = frozenset(
            (function, position, self._defining_class(key)) for function, position, key in found
        )
        return made

    def _function_parameters(self, module: str) -> dict[str, list[str]]:
        """The parameter names of each top-level function of ``module`` (read with ``ast``)."""
        read = self._text_and_tree(module)
        if read is None:
            return {}
        return {
            statement.name: [a.arg for a in (*statement.args.posonlyargs, *statement.args.args, *statement.args.kwonlyargs)]
            for statement in read[1].body if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        }

    def _importer_tree(self, importer: str) -> Optional[ast.Module]:
        """The ``ast`` of an importing module: the tree its outline was just read from, if kept,
        else its text parsed again; None when it does not parse."""
        kept = self._texts.get(importer)
        if kept is not None:
            return kept[1]
        if self._source_of is None:
            self._source_of = dict(self._project_sources())
        try:
            return ast.parse(self._source_of[importer])
        except (SyntaxError, ValueError, RecursionError, MemoryError, KeyError):
            return None

    def _defining_class(self, key: str) -> str:
        """The key of the class ``key`` names where it is defined, following re-exports
        (``lib/train/actors/__init__.py:Actor`` -> ``lib/train/actors/actor.py:Actor``)."""
        for _ in range(8):
            module, _, name = key.rpartition(":")
            outline = self._outline(module)
            if name in outline.classes:
                return key
            binding = next((b for b in outline.bindings if b.local == name and b.symbol not in (None, "*")), None)
            if binding is None or binding.symbol is None:
                return key
            key = class_key(binding.module, binding.symbol)
        return key

    def _importers(self, module: str) -> list[str]:
        """The project's files whose text imports something named like ``module`` (the index
        then checks that the import resolves to it)."""
        path = PurePosixPath(module)
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if not name:
            return []
        return [candidate for candidate in self._import_words().get(name, ()) if candidate != module][:MAX_IMPORTERS]

    def _import_words(self) -> dict[str, list[str]]:
        """Each word of the project's import lines (``from utils import meters``: ``utils``,
        ``meters``, ...) -> the files with such a line, in file order: built in one pass over the
        project's text, where a regular expression per module read it all again each time."""
        if self._imported_words is None:
            self._imported_words = self._files_by_word(lambda text: {word for line in _IMPORT_LINE.findall(text) for word in _WORD.findall(line)})
        return self._imported_words

    def _files_by_word(self, words: Callable[[str], set[str]]) -> dict[str, list[str]]:
        """Each word ``words`` finds in a file of the project -> the files it is found in, in
        file order (one pass over the project's text)."""
        found: dict[str, list[str]] = {}
        for candidate, text in self._project_sources():
            for word in words(text):
                found.setdefault(word, []).append(candidate)
        return found

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

    # ----------------------------------------------------------------- the disk cache
    def _stamp(self, module: str) -> Optional[tuple[int, int]]:
        """The file's (size, mtime_ns), looked up once per process (flake8 and the CLI run
        for one lint; a cache entry checks every file it was computed from)."""
        if module not in self._stamps:
            self._stamps[module] = fingerprint(self.root / module)
        return self._stamps[module]

    def _blob(self, module: str) -> Optional[dict[str, Any]]:
        """The module's cache blob, read at most once per process."""
        if module not in self._blobs:
            data = self.cache.get(_NAMESPACE, module + self._key_suffix) if self.cache is not None else None
            self._blobs[module] = data if isinstance(data, dict) else None
        return self._blobs[module]

    def _store(self, module: str, outline: Optional[_Outline], entry: Optional[_Entry]) -> None:
        """Writes ``module``'s outline and summary (a part's summary alone: ``outline`` None)."""
        if self.cache is None or (outline is not None and outline.stamp is None):
            return
        value: dict[str, Any] = {"outline": outline.to_dict()} if outline is not None else {}
        if entry is not None:
            value["summary"] = entry.summary.to_dict()
            value["deps"] = {path: list(stamp) for path, stamp in entry.deps.items()}
            value["height"] = entry.height
            value["bounded"] = entry.bounded
        self._blobs[module] = value
        self.cache.put(_NAMESPACE, module + self._key_suffix, value)

    # ----------------------------------------------------------------- outlines and summaries
    def _outline(self, module: str) -> _Outline:
        """What ``module`` defines and imports (from memory, the cache, or ``ast``); the
        summary being computed now depends on its file."""
        outline = self._outlines.get(module)
        if outline is None:
            path = self.root / module
            blob = self._blob(module)
            if blob is not None:
                try:
                    cached = _Outline.from_dict(blob["outline"])
                except (KeyError, TypeError, ValueError, AttributeError):
                    cached = None
                if cached is not None and cached.stamp is not None and cached.stamp == self._stamp(module):
                    outline = cached
            if outline is None:
                outline = _read_outline(path, self.root)
                if outline.source is not None and outline.tree is not None:
                    # Kept a while: the module is often summarised right after (trees are large).
                    self._texts[module] = (outline.source, outline.tree)
                    while len(self._texts) > _KEPT_TREES:
                        self._texts.pop(next(iter(self._texts)))
                outline.source = outline.tree = None
                self._store(module, outline, None)
            self._outlines[module] = outline
        if self._active and outline.stamp is not None:
            self._active[-1].deps[module] = outline.stamp
        return outline

    def _summary_for(self, module: str, name: str) -> ModuleSummary:
        """A summary of ``module`` that holds its function or class ``name``: the whole module's
        when known, else that of the part ``name`` needs (its component: the functions and
        classes it calls or is called by, the globals they share, with the imports), so that an
        importer of one helper of a large module analyses only that helper's part of it and of
        the modules it imports in turn."""
        if self._in_memory(module, self._level()) is not None or module in self._open or module in self._pending:
            return self._summary(module)
        known = self._known(module + _PART + name)
        return known if known is not None else self._summary(self._part_key(module, name))

    def _part_key(self, module: str, name: str) -> str:
        """The key of ``name``'s part of ``module`` (named by the first of its names), or
        ``module`` when the part is the whole module or cannot be told."""
        parts = self._module_parts(module)
        if parts is None or name not in parts.component_of:
            return module
        component = parts.partition.components[parts.component_of[name]]
        if len(component.segments) + len(parts.partition.context) >= len(parts.segments):
            return module
        return module + _PART + parts.names[parts.component_of[name]][0]

    def _module_parts(self, module: str) -> Optional[_Parts]:
        """``module`` cut into components (once per process); None when it cannot be read."""
        if module in self._parts:
            return self._parts[module]
        found: Optional[_Parts] = None
        read = self._text_and_tree(module)
        if read is not None:
            source, tree = read
            segments = all_segments(source, tree)
            cut = partition(tree, segments, PER_BATCH_NAMES | self.settings.per_batch_methods)
            segment_component = {position: index for index, component in enumerate(cut.components) for position in component.segments}
            defined: dict[str, list[int]] = {}
            for statement in tree.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    position = segment_at(segments, statement.lineno)
                    defined.setdefault(statement.name, []).append(segment_component.get(position, -1) if position is not None else -1)
            component_of = {name: found_in[0] for name, found_in in defined.items() if len(found_in) == 1 and found_in[0] >= 0}
            names: list[list[str]] = [[] for _ in cut.components]
            for name, index in sorted(component_of.items()):
                names[index].append(name)
            found = _Parts(segments, cut, component_of, names)
        self._parts[module] = found
        return found

    def _summary(self, module: str) -> ModuleSummary:
        """The summary of ``module`` (or of a part of it: ``_summary_for``): from memory, the
        disk cache, or computed now (a module of a cycle being computed gives what it has so
        far)."""
        known = self._known(module)
        if known is not None:
            return known
        frame = self._open.get(module) or self._pending.get(module)
        if frame is not None:  # a cycle: what it has so far, and the reader joins the cycle
            if module in self._open:
                frame.read_early = True
            if self._active:
                reader = self._active[-1]
                reader.low = min(reader.low, frame.low if module in self._pending else frame.depth)
                reader.deps.update(frame.deps)
            return frame.summary
        if self._level() >= MAX_IMPORT_LEVELS:
            for active in self._active:
                active.bounded = True
            return ModuleSummary(_module_of(module))
        if self.cache is not None and module not in self._read_again:
            # Another process may have summarised it since this one first looked (flake8 -j).
            self._read_again.add(module)
            self._blobs.pop(module, None)
            self._blobs.pop(_levelled(module, self._level()), None)
            known = self._known(module)
            if known is not None:
                return known
        if self._computed >= MAX_MODULES:
            for active in self._active:
                active.truncated = True
            return ModuleSummary(_module_of(module))
        return self._compute(module)

    def _level(self) -> int:
        """How many imports away from the linted file the summary asked for now is, less one
        (0: one the linted file imports)."""
        return len(self._active)

    def _known(self, key: str) -> Optional[ModuleSummary]:
        """The summary made for ``key`` (a module or a part) that holds at the level it is asked
        at, from memory or the disk cache; the summary being computed now depends on it."""
        level = self._level()
        entry = self._in_memory(key, level)
        if entry is None:
            loaded = self._load(key)
            entry = loaded if loaded is not None and loaded.holds_at(level) else self._load(key, level)
        if entry is None:
            return None
        if self._active:
            self._active[-1].read(entry)
        return entry.summary

    def _in_memory(self, key: str, level: int) -> Optional[_Entry]:
        """The summary this process made (or read) for ``key`` that holds at ``level``."""
        entry = self._entries.get(key)
        if entry is not None and entry.holds_at(level):
            return entry
        return self._bounded.get((key, level))

    def _load(self, module: str, level: Optional[int] = None) -> Optional[_Entry]:
        """The cache's summary of ``module``; with ``level``, its summary made at that level
        that holds only there."""
        blob = self._blob(module if level is None else _levelled(module, level))
        if blob is None or "summary" not in blob:
            return None
        try:
            deps = {str(path): (int(stamp[0]), int(stamp[1])) for path, stamp in blob["deps"].items()}
            if _module_of(module) not in deps or any(self._stamp(path) != stamp for path, stamp in deps.items()):
                return None
            entry = _Entry(ModuleSummary.from_dict(blob["summary"]), deps, int(blob["height"]), bool(blob["bounded"]))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return None
        if level is None and not entry.bounded:
            self._entries[module] = entry
        elif level is not None and entry.bounded:
            self._bounded[(module, level)] = entry
        else:
            return None
        return entry

    def _keep(self, key: str, level: int, entry: _Entry, outline: Optional[_Outline], stored: bool) -> None:
        """Remember ``entry`` as ``key``'s summary (made at ``level``), and write it to the cache
        when ``stored``."""
        if entry.bounded:
            self._bounded[(key, level)] = entry
            if stored:
                self._store(_levelled(key, level), None, entry)
            return
        self._entries[key] = entry
        if stored:
            self._store(key, outline, entry)

    def _compute(self, module: str) -> ModuleSummary:
        """Summarise ``module``. The modules of an import cycle (found as in Tarjan's algorithm:
        a module read while still being summarised) are final together, when the first of them
        is; that one is summarised again, and the others with it as it asks for them, until no
        summary of the cycle changes (at most ``FIXPOINT_ROUNDS`` rounds, each from the
        summaries of the round before, the first from empty ones)."""
        key, module = module, _module_of(module)
        stamp = self._stamp(module)
        if stamp is not None and stamp[0] > MAX_SUMMARISED_BYTES:
            # Nothing of it is known, as for a third-party module; recorded so that it is not tried again.
            empty = ModuleSummary(module)
            self._entries[key] = _Entry(empty, {module: stamp})
            if self._active:
                self._active[-1].deps[module] = stamp
            return empty
        self._computed += 1
        depth = len(self._active)
        frame = _Frame(key, depth, depth, ModuleSummary(module))
        self._active.append(frame)
        self._open[key] = frame
        before: dict[str, ModuleSummary] = {}
        # Tarjan's stack: the members of this module's cycle are the modules left pending since now.
        pending_before = set(self._pending)
        try:
            for _ in range(FIXPOINT_ROUNDS):
                earlier = set(self._pending)
                frame.read_early = False
                frame.summary = self._summarise(module, self._outline(module), self._kept_segments(key))
                if not frame.read_early or frame.low < depth:
                    break  # no cycle, or one whose first module is further down: it repeats
                members = [frame] + [self._pending[name] for name in self._pending if name not in earlier]
                after = {member.module: member.summary for member in members}
                if all(summary == before.get(name, ModuleSummary(name)) for name, summary in after.items()):
                    break
                before = after
                for member in members[1:]:
                    del self._pending[member.module]  # computed again from the new summaries
        finally:
            self._active.pop()
            del self._open[key]
        if self._active:
            parent = self._active[-1]
            parent.low = min(parent.low, frame.low)
            parent.read(frame)
            parent.truncated = parent.truncated or frame.truncated
        if frame.low < depth:
            self._pending[key] = frame  # final when the cycle's first module is
            return frame.summary
        members = [frame] + [pending for name, pending in self._pending.items() if name not in pending_before]
        deps: dict[str, tuple[int, int]] = {}
        for member in members:
            deps.update(member.deps)
        # (the members of a cycle read each other: each holds as far as the deepest one does)
        height = max(member.height for member in members)
        bounded = any(member.bounded for member in members)
        for member in members:
            self._pending.pop(member.module, None)
            entry = _Entry(member.summary, dict(deps), height, bounded)
            stored = not frame.truncated and _module_of(member.module) in deps
            if _PART not in member.module:
                self._keep(member.module, member.depth, entry, self._outline_quietly(member.module) if stored else None, stored)
                continue
            # a part: known (and stored) under each of its names, as ``_summary_for`` asks
            part_module = _module_of(member.module)
            parts = self._module_parts(part_module)
            name = member.module[len(part_module) + 1:]
            self._keep(member.module, member.depth, entry, None, False)
            if parts is not None and name in parts.component_of:
                for alias in parts.names[parts.component_of[name]]:
                    self._keep(part_module + _PART + alias, member.depth, entry, None, stored)
        return frame.summary

    def _kept_segments(self, key: str) -> Optional[frozenset[int]]:
        """The segments a part's summary is computed from (the imports and its component);
        None for a whole module."""
        module, _, name = key.partition(_PART)
        parts = self._module_parts(module) if name else None
        if parts is None or name not in parts.component_of:
            return None
        component = parts.partition.components[parts.component_of[name]]
        return frozenset({*parts.partition.context, *component.segments})

    def _outline_quietly(self, module: str) -> _Outline:
        outline = self._outlines.get(module)
        return outline if outline is not None else _read_outline(self.root / module, self.root)

    def _summarise(self, module: str, outline: _Outline, kept: Optional[frozenset[int]] = None) -> ModuleSummary:
        analysed = self._analysed(module, outline, kept)
        if analysed is None:
            return ModuleSummary(module)
        parsed, tree, facts, externals = analysed
        try:
            return _export(module, parsed, facts, externals, tree)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ModuleSummary(module)
        except Exception:  # a bug summarising a helper must not cost the linted file its analysis
            return ModuleSummary(module)
        finally:
            facts.release()  # only the summary is kept: reference counting frees the module's tree

    def _analysed(
        self, module: str, outline: _Outline, kept: Optional[frozenset[int]] = None
    ) -> Optional[tuple[cst.Module, ast.Module, FileFacts, Externals]]:
        """``module`` parsed and analysed with its own imports resolved (only the segments
        ``kept``, when given: the others' lines are left blank, so that every line keeps its
        number); None when it cannot be."""
        from torchleak.analysis.flow import analyse

        read = self._text_and_tree(module)
        if read is None:
            return None
        source, tree = whole_source, whole_tree = read
        parts = self._module_parts(module) if kept is not None else None
        if parts is not None and kept is not None:
            source, tree = _blanked(whole_source, whole_tree, parts, kept)
        try:
            parsed = parse_module(source)
        except (cst.ParserSyntaxError, RecursionError, ValueError, MemoryError):
            return None
        externals = _LazyExternals(_LazyNames(self, outline.used), _ClassRegistry(self))
        # its own importers, for a helper's caller that is itself called per batch one module up
        externals.path = module
        externals.importer_facts = functools.cache(lambda: self._importer_facts(module))
        externals.called_with_grad_by_importers = _Lazy(lambda: self._called_with_grad_by_importers(module))
        externals.argument_classes_by_importers = _Lazy(lambda: self._argument_classes_by_importers(module))
        # (as when the module itself is linted: a file the pre-filter drops is never analysed
        # there, so its methods are not taken as per-batch here either, and each caller reports
        # what they keep; the pre-filter runs only if the analysis asks)
        externals.called_per_batch_by_importers = _Lazy(lambda: self._called_with_grad_by_importers(module, in_loops=True))
        externals.analysed_when_linted = functools.cache(lambda: self._passes_prefilter(module, whole_source, whole_tree))
        try:
            facts = analyse(parsed, self.settings, called_under_no_grad(tree), externals=externals)
        except Exception:  # a bug analysing a helper must not cost the linted file its analysis
            return None
        return parsed, tree, facts, externals

    # ----------------------------------------------------------------- name resolution
    def _symbol(self, module: str, name: str, depth: int) -> Optional[Imported]:
        """What ``name`` is in ``module``: its function or class, or what it imports as ``name``
        (the module is summarised only when it defines ``name`` itself)."""
        if depth > MAX_REEXPORT_DEPTH:
            return None
        outline = self._outline(module)
        if name in outline.functions or name in outline.classes:
            summary = self._summary_for(module, name)
            found: Optional[Imported] = summary.functions.get(name) or summary.classes.get(name)
            if found is not None:
                return found
        for binding in outline.bindings:
            if binding.local == name:  # a re-export
                if binding.symbol is None:
                    return self._summary(binding.module)
                return self._symbol(binding.module, binding.symbol, depth + 1)
        for binding in outline.bindings:
            if binding.symbol == "*":
                reexported = self._symbol(binding.module, name, depth + 1)
                if reexported is not None:
                    return reexported
        return None

    def _public(self, module: str, name: str, depth: int = 0) -> Optional[Imported]:
        """What ``from module import *`` binds ``name`` to: a public function or class of it, or
        a public name it imports itself (a package's ``__init__.py`` re-exporting its modules)."""
        if depth > MAX_REEXPORT_DEPTH or name.startswith("_"):
            return None
        outline = self._outline(module)
        if name in outline.functions or name in outline.classes:
            summary = self._summary_for(module, name)
            found: Optional[Imported] = summary.functions.get(name) or summary.classes.get(name)
            if found is not None:
                return found
        for binding in outline.bindings:
            if binding.symbol == "*":
                found = self._public(binding.module, name, depth + 1)
                if found is not None:
                    return found
            elif binding.local == name and "." not in name:
                found = self._summary(binding.module) if binding.symbol is None else self._symbol(module, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _public_names(self, module: str, depth: int = 0) -> Iterator[str]:
        """The names ``from module import *`` may bind (without summarising anything)."""
        if depth > MAX_REEXPORT_DEPTH:
            return
        outline = self._outline(module)
        yield from (name for name in (*sorted(outline.functions), *outline.classes) if not name.startswith("_"))
        for binding in outline.bindings:
            if binding.symbol == "*":
                yield from self._public_names(binding.module, depth + 1)
            elif not binding.local.startswith("_") and "." not in binding.local:
                yield binding.local

    # ----------------------------------------------------------------- could a name be a class with a method?
    def _shape(self, module: str, name: str, depth: int) -> Optional[frozenset[tuple[str, str]]]:
        """What ``_symbol(module, name, depth)`` finds, read from outlines alone: None when it
        finds nothing, else the classes it may be (empty for a function or a module)."""
        key = (module, name, depth, False)
        if key not in self._shapes:
            self._shapes[key] = self._find_shape(module, name, depth)
        return self._shapes[key]

    def _find_shape(self, module: str, name: str, depth: int) -> Optional[frozenset[tuple[str, str]]]:
        if depth > MAX_REEXPORT_DEPTH:
            return None
        outline = self._outline(module)
        if name in outline.functions:
            return frozenset()
        if name in outline.classes:
            return frozenset({(module, name)})
        for binding in outline.bindings:
            if binding.local == name:
                return frozenset() if binding.symbol is None else self._shape(binding.module, binding.symbol, depth + 1)
        for binding in outline.bindings:
            if binding.symbol == "*":
                found = self._shape(binding.module, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _public_shape(self, module: str, name: str, depth: int = 0) -> Optional[frozenset[tuple[str, str]]]:
        """What ``_public(module, name, depth)`` finds, as ``_shape`` tells it."""
        key = (module, name, depth, True)
        if key not in self._shapes:
            self._shapes[key] = self._find_public_shape(module, name, depth)
        return self._shapes[key]

    def _find_public_shape(self, module: str, name: str, depth: int) -> Optional[frozenset[tuple[str, str]]]:
        if depth > MAX_REEXPORT_DEPTH or name.startswith("_"):
            return None
        outline = self._outline(module)
        if name in outline.functions:
            return frozenset()
        if name in outline.classes:
            return frozenset({(module, name)})
        for binding in outline.bindings:
            found: Optional[frozenset[tuple[str, str]]] = None
            if binding.symbol == "*":
                found = self._public_shape(binding.module, name, depth + 1)
            elif binding.local == name and "." not in name:
                found = frozenset() if binding.symbol is None else self._shape(module, name, depth + 1)
            if found is not None:
                return found
        return None

    def _may_define(self, module: str, name: str, method: str, depth: int = 0) -> bool:
        """Whether the summary of class ``name`` of ``module`` may have ``method`` (its own,
        a base's in the module, or one inherited from another module of the project)."""
        key = (module, name, method)
        if key not in self._defines:
            self._defines[key] = True  # a cycle of bases: assume it may
            self._defines[key] = self._find_definition(module, name, method, depth)
        return self._defines[key]

    def _find_definition(self, module: str, name: str, method: str, depth: int) -> bool:
        if depth > MAX_REEXPORT_DEPTH:
            return True
        outline = self._outline(module)
        seen: set[str] = set()
        pending = [name]
        external: list[str] = []
        while pending:
            current = pending.pop(0)
            if current in seen or current not in outline.classes:
                continue
            seen.add(current)
            info = outline.classes[current]
            if method in info.methods:
                return True
            for base in info.bases:
                if base is None:
                    continue
                pending.append(base.rsplit(".", 1)[-1])
                if base not in outline.classes:
                    external.append(base)
        used = outline.used
        for base in external:
            if any(binding.symbol == "*" for binding in used):
                return True  # anything may come through a star import
            for binding in used:
                candidates: Optional[frozenset[tuple[str, str]]]
                if binding.local == base and binding.symbol is not None:
                    candidates = self._shape(binding.module, binding.symbol, 0)
                elif base.startswith(binding.local + ".") and binding.symbol is None:
                    rest = base[len(binding.local) + 1:]
                    candidates = frozenset({(binding.module, rest)}) if "." not in rest and rest in self._outline(binding.module).classes else None
                elif base.startswith(binding.local + ".") or binding.local.startswith(base + "."):
                    return True  # an unusual spelling: do not guess
                else:
                    continue
                if candidates is not None and any(self._may_define(owner, cls, method, depth + 1) for owner, cls in candidates):
                    return True
        return False

    def methods_defined(self, method: str, linted: str) -> list[Summary]:
        """``method`` of every class of the project's other modules that defines it: found in the
        files' text first (one pass over the project for every method name), then in the
        outlines of the files that have it; only the modules of those classes are summarised."""
        owners = [
            (module, cls)
            for module in self._files_defining(method)
            if module != linted
            for cls, outline in self._outline(module).classes.items()
            if method in outline.methods
        ]
        if len(owners) > MAX_METHOD_OWNERS:
            return []  # a name that common says nothing about the object
        found: list[Summary] = []
        for module, cls in owners:
            summary = self._summary_for(module, cls).classes.get(cls)
            if summary is not None and method in summary.methods:
                found.append(summary.methods[method])
        return found

    def overrides_of(self, base: str, method: str, linted: str) -> list[Summary]:
        """``method`` of the one class of the project's other modules whose bases name ``base``
        (by its last name, as written) and that defines it itself; empty when there are none
        or several (read from outlines: only that one class's module is summarised)."""
        owners = [
            (module, cls)
            for module in self._files_defining(method)
            if module != linted
            for cls, outline in self._outline(module).classes.items()
            if method in outline.methods and any((written or "").rsplit(".", 1)[-1] == base for written in outline.bases)
        ]
        if len(owners) != 1:
            return []
        module, cls = owners[0]
        summary = self._summary_for(module, cls).classes.get(cls)
        return [summary.methods[method]] if summary is not None and method in summary.methods else []

    def _files_defining(self, method: str) -> list[str]:
        """The files of the project whose text has an indented ``def method`` (every method of
        a project class is one: a superset, from one pass over the project's text)."""
        if self._method_files is None:
            self._method_files = self._files_by_word(lambda text: set(_METHOD_DEF.findall(text)))
        return self._method_files.get(method, [])

    def class_summary(self, key: str) -> Optional[ClassSummary]:
        module, _, name = key.rpartition(":")
        if not module or not (self.root / module).is_file():
            return None
        return self._summary_for(module, name).classes.get(name)


class _LazyNames(Mapping[str, Imported]):
    """What a module's imports bind, by local name, each resolved when the analysis first asks
    for it. Iterating resolves every name (only tests do)."""

    def __init__(self, index: ProjectIndex, bindings: list[ImportBinding], uses: Optional[Callable[[str], bool]] = None) -> None:
        self._index = index
        self._all = bindings
        #: Tells which imports the code uses (bindings come already filtered without it).
        self._uses = uses
        self._used: Optional[list[ImportBinding]] = None if uses is not None else bindings
        self._locals = {binding.local for binding in bindings if binding.symbol != "*"}
        self._stars = [binding for binding in bindings if binding.symbol == "*"]
        self._resolved: dict[str, Optional[Imported]] = {}
        self._candidates: Optional[list[str]] = None
        self._methods: dict[str, list[Summary]] = {}

    @property
    def _bindings(self) -> list[ImportBinding]:
        if self._used is None:
            uses = self._uses
            self._used = [binding for binding in self._all if binding.symbol == "*" or (uses is not None and uses(binding.local))]
        return self._used

    def get(self, local: str, default: Optional[Imported] = None) -> Optional[Imported]:  # type: ignore[override]
        if local not in self._locals and not self._stars:
            return default
        if local not in self._resolved:
            self._resolved[local] = self._resolve(local)
        found = self._resolved[local]
        return default if found is None else found

    def _resolve(self, local: str) -> Optional[Imported]:
        # As a dict filled in import order: a plain import binds (a later one wins), a star
        # import only names nothing bound yet.
        found: Optional[Imported] = None
        for binding in self._bindings:
            if binding.symbol == "*":
                if found is None:
                    found = self._index._public(binding.module, local)
            elif binding.local == local:
                value = self._index._summary(binding.module) if binding.symbol is None else self._index._symbol(binding.module, binding.symbol, 0)
                if value is not None:
                    found = value
        return found

    def __getitem__(self, local: str) -> Imported:
        found = self.get(local)
        if found is None:
            raise KeyError(local)
        return found

    def candidates(self) -> list[str]:
        """Every local name that may be bound, in import order, each once."""
        if self._candidates is None:
            names = (self._index._public_names(b.module) if b.symbol == "*" else (b.local,) for b in self._bindings)
            self._candidates = list(dict.fromkeys(name for group in names for name in group))
        return self._candidates

    def __iter__(self) -> Iterator[str]:
        return (local for local in self.candidates() if self.get(local) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def methods_named(self, method: str) -> list[Summary]:
        """The method ``method`` of every bound class that has one; classes that cannot have
        it (read from outlines) are not summarised."""
        found = self._methods.get(method)
        if found is None:
            found = self._methods[method] = []
            if not self._index._files_defining(method):
                # No class of the project defines it: the imports need not be followed (on a
                # large project, following them reads the outlines of hundreds of modules).
                return []
            for local in self.candidates():
                if self._may_be_class_with(local, method):
                    value = self.get(local)
                    if isinstance(value, ClassSummary) and method in value.methods:
                        found.append(value.methods[method])
        return list(found)

    def _may_be_class_with(self, local: str, method: str) -> bool:
        """Whether ``get(local)`` may be a class with ``method``, from outlines (as ``_resolve``)."""
        index = self._index
        found: Optional[frozenset[tuple[str, str]]] = None
        for binding in self._bindings:
            if binding.symbol == "*":
                if found is None:
                    found = index._public_shape(binding.module, local)
            elif binding.local == local:
                shape = frozenset() if binding.symbol is None else index._shape(binding.module, binding.symbol, 0)
                if shape is not None:
                    found = shape
        return found is not None and any(index._may_define(module, name, method) for module, name in found)


@dataclass
class _LazyExternals(Externals):
    """``Externals`` whose names are resolved on demand."""

    def methods_named(self, method: str) -> list[Summary]:
        names = self.names
        return names.methods_named(method) if isinstance(names, _LazyNames) else super().methods_named(method)

    def project_methods_named(self, method: str) -> list[Summary]:
        names = self.names
        return names._index.methods_defined(method, self.path) if isinstance(names, _LazyNames) else []

    def project_overrides(self, base: str, method: str) -> list[Summary]:
        names = self.names
        return names._index.overrides_of(base, method, self.path) if isinstance(names, _LazyNames) else []

    def reexported(self, module: ModuleSummary, name: str) -> Optional[Imported]:
        names = self.names
        if not isinstance(names, _LazyNames):
            return None
        found: Optional[Imported] = module
        for part in name.split("."):  # ``pkg.sub.Class``: each part through the one before
            if not isinstance(found, ModuleSummary):
                return None
            found = found.functions.get(part) or found.classes.get(part) or names._index._symbol(found.path, part, 0)
        return found


class _Lazy:
    """A set computed on first use (reading importers costs a project scan)."""

    def __init__(self, compute: Callable[[], frozenset[Any]]) -> None:
        self._compute: Optional[Callable[[], frozenset[Any]]] = compute
        self._items: frozenset[Any] = frozenset()

    def _computed(self) -> frozenset[Any]:
        if self._compute is not None:
            self._items, self._compute = self._compute(), None
        return self._items

    def __contains__(self, item: object) -> bool:
        return item in self._computed()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._computed())

    def __len__(self) -> int:
        return len(self._computed())


class _ClassRegistry(Mapping[str, ClassSummary]):
    """Every class of the project by ``class_key``, summarised when a value names it."""

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
def _qualified(value: Value, path: str, local_classes: Mapping[str, cst.ClassDef]) -> Value:
    """Values naming a class of the module ``path`` (``local_classes``) name it project-wide."""
    elements = tuple(_qualified(element, path, local_classes) for element in value.elements) if value.elements is not None else None
    cls = value.cls
    if cls is not None and any(part in local_classes for part in classes_of(cls)):
        cls = CLASS_UNION.join(class_key(path, part) if part in local_classes else part for part in classes_of(cls))
    return replace(value, elements=elements, cls=cls) if (cls != value.cls or elements != value.elements) else value


def _blanked(source: str, tree: ast.Module, parts: _Parts, kept: frozenset[int]) -> tuple[str, ast.Module]:
    """The module's text with the segments not ``kept`` blanked (each line left empty), and an
    ``ast`` of the kept statements (their line numbers unchanged)."""
    lines = io.StringIO(source, newline="").readlines()
    for position, segment in enumerate(parts.segments):
        if position not in kept:
            first = segment.first_line - 1
            for index in range(first, min(first + len(io.StringIO(segment.text, newline="").readlines()), len(lines))):
                line = lines[index]
                lines[index] = line[len(line.rstrip("\r\n")):] or "\n"
    statements = [
        statement for statement in tree.body
        if segment_at(parts.segments, statement.lineno) in kept
    ]
    return "".join(lines), ast.Module(body=statements, type_ignores=[])


def _export(path: str, module: cst.Module, facts: FileFacts, externals: Externals, tree: Optional[ast.Module] = None) -> ModuleSummary:
    """The top-level functions and classes of an analysed module, as its importers see them."""
    from torchleak.analysis.flow import filled_with_graphs, key_positions

    local_classes = {statement.name.value: statement for statement in module.body if type(statement) is cst.ClassDef}
    by_node = {id(function.node): function for function in facts.functions}
    lines = _Lines(module, tree)

    def qualified(value: Value) -> Value:
        return _qualified(value, path, local_classes)

    def summary_of(node: cst.FunctionDef) -> Optional[Summary]:
        function = by_node.get(id(node))
        if function is None:
            return None
        summary = function.summary
        effects = []
        for effect in summary.effects:
            # One from another module stays; a reset is never named in a message (no position needed).
            origin = effect.origin or (path if effect.kind == "reset" else _origin(effect, function))
            stored = function.effect_stores.get(id(effect))
            keyed = effect.keyed or (key_positions(function, stored) if stored is not None else ())
            effects.append(replace(effect, value=qualified(effect.value), origin=origin, keyed=keyed))
        per_batch_hook, hook_sources = _hook_calls(facts, function, calls_by_id)
        return replace(
            summary, returns=qualified(summary.returns), effects=effects, module=path, per_batch_hook=per_batch_hook, hook_sources=hook_sources,
        )

    calls_by_id: dict[int, cst.Call] = {}
    by_name = {function.name: function for function in facts.functions}

    def _origin(effect: Effect, function: Function) -> str:
        """``utils.py:25``: the statement of the function the effect names (``where``), which is
        a callee of ``function`` when ``function`` only calls the helper that does it."""
        statement = function.effect_nodes.get(id(effect))
        owner = function
        inner = by_name.get(effect.where)
        if inner is not None and inner is not function:
            for candidate in inner.summary.effects:
                if (candidate.kind, candidate.method) == (effect.kind, effect.method) and id(candidate) in inner.effect_nodes:
                    statement, owner = inner.effect_nodes[id(candidate)], inner
                    break
        line = lines.of(statement, owner.node) if statement is not None else None
        return f"{path}:{line}" if line else path

    exported = ModuleSummary(path)
    if facts.evidence is not None:
        exported.backwarded = sorted(key for key in facts.evidence.backwarded_results if ":" in key)
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            summary = summary_of(statement)
            if summary is not None:
                exported.functions[statement.name.value] = summary
    filled = {(function.cls, attribute) for function in facts.functions if function.cls for attribute in filled_with_graphs(function)}
    for name in local_classes:
        info = ClassSummary(name, path, is_module=name in facts.module_classes, fields=facts.record_classes.get(name))
        for definition in _class_chain(name, local_classes):
            if isinstance(definition, ClassSummary):
                for method, summary in definition.methods.items():
                    info.methods.setdefault(method, summary)
                for attribute, value in definition.attributes.items():
                    info.attributes.setdefault(attribute, value)
                info.is_module = info.is_module or definition.is_module
                continue
            for member in definition.body.body if type(definition.body) is cst.IndentedBlock else ():
                if type(member) is cst.FunctionDef and member.name.value not in info.methods:
                    summary = summary_of(member)
                    if summary is not None:
                        info.methods[member.name.value] = summary
            for (owner, attribute), value in facts.attributes.items():
                if owner == definition.name.value:
                    if value.kind is Kind.CONTAINER and (owner, attribute) in filled:
                        value = replace(value, state=State.ATTACHED)  # (``self.outputs['std'] = std`` in its forward)
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


def _called_on_self_in_loops(tree: ast.Module) -> set[str]:
    """``m`` for each ``self.m(...)`` a method of a class of ``tree`` makes inside a loop, or in
    a method those calls reach (``fit`` looping over ``self.fit_batch``, which calls
    ``self.compute_objectives``)."""
    found: set[str] = set()
    for definition in tree.body:
        if not isinstance(definition, ast.ClassDef):
            continue
        calls: dict[str, set[str]] = {}
        looped: set[str] = set()
        for member in definition.body:
            if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            calls[member.name] = _self_calls(member)
            for loop in ast.walk(member):
                if isinstance(loop, (ast.For, ast.While, ast.AsyncFor)):
                    looped |= _self_calls(loop)
        pending = list(looped)
        while pending:
            name = pending.pop()
            for called in calls.get(name, set()) - looped:
                looped.add(called)
                pending.append(called)
        found |= looped
    return found


def _self_calls(node: ast.AST) -> set[str]:
    """``m`` for each ``self.m(...)`` under ``node``."""
    return {
        call.func.attr for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
    }


def _hook_calls(facts: FileFacts, function: Function, calls_by_id: dict[int, cst.Call]) -> tuple[bool, tuple[str, ...]]:
    """Whether the method's own class runs it once per batch (``self.compute_objectives(...)`` in
    ``fit_batch``, run by ``fit``'s loop), and, for each parameter position, the method of the
    object whose result those calls pass there (``predictions = self.compute_forward(batch)``)."""
    from torchleak.analysis.flow import single_assign, subtree
    from torchleak.analysis.queries import per_batch_sites

    if function.cls is None or type(function.node) is not cst.FunctionDef:
        return False, ()
    sites = [site for site in per_batch_sites(facts, function.summary.key) if site.function.cls is not None]
    if not sites:
        # ``self.learn(batch)`` of the class may name a subclass's implementation (an abstract
        # method the project implements once), as the site then says: per batch in this file,
        # or in a method called once per batch by another module (tianshou's
        # ``offpolicy_trainer`` calling ``BasePolicy.update``, which calls ``self.learn``)
        method = function.summary.key.rsplit(".", 1)[-1]
        on_self = [site for site in facts.call_sites if site.function.cls == function.cls and site.function is not function]
        if on_self:
            if not calls_by_id:
                calls_by_id.update({id(node): node for node in subtree(facts.module) if type(node) is cst.Call})
            on_self = [site for site in on_self if site.callee != function.summary.key and (call := calls_by_id.get(site.call_id)) is not None and method_on_self(call.func) == method]
        if on_self:
            per_batch = {id(site) for callee in {site.callee for site in on_self} for site in per_batch_sites(facts, callee)}
            sites = [site for site in on_self if id(site) in per_batch]
        if on_self and not sites and facts.externals is not None and facts.externals.path:  # (only then the importers' loops are read)
            by_importers = facts.externals.called_per_batch_by_importers
            sites = [site for site in on_self if site.function.summary.key in by_importers]
    if not sites:
        return False, ()
    if not calls_by_id:
        calls_by_id.update({id(node): node for node in subtree(facts.module) if type(node) is cst.Call})
    sources: list[str] = [""] * len(function.summary.parameters)
    for site in sites:
        call = calls_by_id.get(site.call_id)
        if call is None or type(call.func) is not cst.Attribute or dotted(call.func.value) != "self":
            continue
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        for position, argument in enumerate(positional, start=1):
            if position >= len(sources):
                break
            if type(argument) is cst.Name:
                bound = [b for b in site.function.bindings if b.key == argument.value and b.seq < site.seq]
                assign = single_assign(max(bound, key=lambda b: b.seq).node) if bound else None
                argument = assign.value if assign is not None else argument
            if type(argument) is cst.Call and type(argument.func) is cst.Attribute and dotted(argument.func.value) == "self":
                sources[position] = argument.func.attr.value
    return True, tuple(sources)


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
    """Line numbers of statements inside functions, resolved only when a summary has effects
    to place. Positions for a whole module cost a codegen walk of all of it (most of a
    helper's summary); a function's own codegen, anchored at the line ``ast`` gives its
    ``def``, costs only that function."""

    def __init__(self, module: cst.Module, tree: Optional[ast.Module]) -> None:
        self._module = module
        self._tree = tree
        self._def_lines: Optional[dict[int, int]] = None
        self._local: dict[int, tuple[int, Mapping[cst.CSTNode, CodeRange]]] = {}
        self._whole: Optional[Mapping[cst.CSTNode, CodeRange]] = None

    def of(self, node: cst.CSTNode, within: Union[cst.FunctionDef, cst.Module, None] = None) -> Optional[int]:
        """The first line of ``node``, a statement of the function ``within``."""
        if type(within) is cst.FunctionDef:
            anchored = self._in_function(within)
            if anchored is not None:
                offset, positions = anchored
                where = positions.get(node)
                if where is not None:
                    return offset + where.start.line
        return self._whole_module(node)

    def _in_function(self, function: cst.FunctionDef) -> Optional[tuple[int, Mapping[cst.CSTNode, CodeRange]]]:
        found = self._local.get(id(function))
        if found is not None:
            return found
        def_line = self._def_line(function)
        if def_line is None:
            return None
        try:
            positions = MetadataWrapper(cst.Module(body=[function]), unsafe_skip_copy=True).resolve(PositionProvider)
        except Exception:
            return None
        name = positions.get(function.name)
        if name is None:
            return None
        found = self._local[id(function)] = (def_line - name.start.line, positions)
        return found

    def _def_line(self, function: cst.FunctionDef) -> Optional[int]:
        """The ``def`` line of ``function``: the n-th definition in source order in both trees."""
        if self._def_lines is None:
            from torchleak.analysis.flow import iter_statements

            self._def_lines = {}
            if self._tree is not None:
                ordered = [node for node in iter_statements(self._module.body) if type(node) is cst.FunctionDef]
                lines = sorted(
                    (node.lineno, node.col_offset)
                    for node in ast.walk(self._tree)
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                )
                if len(ordered) == len(lines):
                    self._def_lines = {id(node): line for node, (line, _) in zip(ordered, lines)}
        return self._def_lines.get(id(function))

    def _whole_module(self, node: cst.CSTNode) -> Optional[int]:
        if self._whole is None:
            try:
                self._whole = MetadataWrapper(self._module, unsafe_skip_copy=True).resolve(PositionProvider)
            except Exception:
                self._whole = {}
        where = self._whole.get(node)
        return where.start.line if where is not None else None


# --------------------------------------------------------------------------- entry point
_INDEXES: dict[tuple[str, Optional[str], bool, str], ProjectIndex] = {}


def index_for(origin: Origin, settings: Settings) -> ProjectIndex:
    """The index of the project ``origin.path`` belongs to (one per process, root and settings)."""
    root, directory = cache_directory(origin.path, origin.cache_dir, origin.linted_directory)
    use_cache = origin.use_cache and enabled_by_environment()
    key = (str(root), origin.cache_dir, use_cache, settings.vocabulary_key())
    index = _INDEXES.get(key)
    if index is None:
        cache = Cache.at(directory) if use_cache else None
        index = _INDEXES[key] = ProjectIndex(root, settings, cache)
    return index


def helper_keepers(tree: ast.AST, source: str, settings: Settings) -> frozenset[str]:
    """``ProjectIndex.helper_keepers`` of the linted file, when ``settings.origin`` says where it
    lives; empty when it does not."""
    origin = settings.origin
    if origin is None or not isinstance(tree, ast.Module) or not any(isinstance(node, ast.ClassDef) for node in tree.body):
        return frozenset()
    return index_for(origin, settings).helper_keepers(tree, source, Path(os.path.abspath(origin.path)))


def overridden_hooks(tree: ast.AST, source: str, settings: Settings) -> frozenset[str]:
    """``ProjectIndex.overridden_hooks`` of the linted file, when ``settings.origin`` says where
    it lives; empty when it does not, or when its classes have no base."""
    origin = settings.origin
    if origin is None or not isinstance(tree, ast.Module) or not any(isinstance(node, ast.ClassDef) and node.bases for node in tree.body):
        return frozenset()
    return index_for(origin, settings).overridden_hooks(tree, source, Path(os.path.abspath(origin.path)))


def externals_for(module: cst.Module, settings: Settings, code: Optional[Callable[[], str]] = None) -> Optional[Externals]:
    """What the imports of the linted ``module`` bind, when ``settings.origin`` says where it lives;
    ``code`` makes ``module.code`` (the engine reads it off the file's text, without a codegen)."""
    origin = settings.origin
    if origin is None:
        return None
    index = index_for(origin, settings)
    return index.externals(Path(os.path.abspath(origin.path)), _iter_imports(module), code if code is not None else lambda: module.code)
