"""Which top-level statements of a file can change each other's findings: the file's components.

An editor lints a file again after every keystroke, and a keystroke changes one function. The
analysis is whole-file (a caller's use of a result decides a callee's finding, a class defined
anywhere decides what a call builds), but it only ever connects two statements through a name
they share: a global one reads (a function, a class, a module-level variable, a name imported
from outside torch), or a member of one of the file's classes that another reads through an
object (``meter.update`` where a class defines ``update``). Statements that share no such name
are analysed by the same walks as if they were two files, and give the same findings; so a
component whose statements did not change keeps the findings it had (``engine.py`` caches them
per component), and only the changed component is parsed and analysed again.

What is *not* a link, and why:
* imports are in every component (they bind names, never hold a finding);
* names imported from torch (``torch``, ``nn``, ``F``, ``Adam``): the torch knowledge table
  decides what their calls give before any evidence from the file is asked;
* Python's builtins the file does not rebind;
* a function's own locals and parameters (the analysis scopes what it learns about them to
  the function), and ``self.x`` inside a class (one statement holds the class).

tests/test_components.py checks, on every zoo, realistic and project file, that analysing each
component alone gives exactly the whole file's findings.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Optional, Union

from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.prefilter import Segment, may_hold_a_finding

_BUILTINS: Final = frozenset(dir(builtins))
_Scope = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
#: In the set of locals of every function scope (no identifier is empty): a ``def`` seen with
#: an empty set of locals is at module level.
_IN_A_FUNCTION: Final = ""


@dataclass
class _Names:
    """What one top-level statement shows of the names that link it to others."""

    #: An import (or several on one line): in every component, linking nothing by itself.
    context: bool = False
    #: Names its imports bind, with whether the module imported from is torch's.
    imported: dict[str, bool] = field(default_factory=dict)
    #: Global names it binds (a top-level ``def``/``class``, a module-level assignment, a ``global``).
    binds: set[str] = field(default_factory=set)
    #: Global names it reads.
    reads: set[str] = field(default_factory=set)
    #: Members its classes define, and attributes it stores on any object.
    members: set[str] = field(default_factory=set)
    #: Attributes it reads or calls through an object other than ``self``.
    member_reads: set[str] = field(default_factory=set)
    #: It defines a class whose per-batch method (``forward``, ``training_step``) changes the
    #: object's state: any loop calling an object of unknown class may be running it.
    stateful_module: bool = False
    #: Names read in annotations (``x: Optional[Tensor]``): a link only to a class of the file.
    annotations: set[str] = field(default_factory=set)


def _bound_in(scope: _Scope) -> tuple[set[str], set[str]]:
    """The names a function binds (its locals) and those it declares global, not looking into
    the functions and classes defined inside it (their bodies are their own scopes)."""
    arguments = scope.args
    local = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    local |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    declared: set[str] = set()
    body: list[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            local.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(node.name)
            body.extend(node.decorator_list)
            body.extend(getattr(node, "bases", ()))
            if not isinstance(node, ast.ClassDef):
                body.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
            continue
        elif isinstance(node, ast.Lambda):
            body.extend(node.args.defaults)
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            local.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            local.add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name or isinstance(node, ast.MatchStar) and node.name:
            local.add(node.name)
        body.extend(ast.iter_child_nodes(node))
    return local - declared, declared


def _changes_its_state(cls: ast.ClassDef, per_batch: Collection[str]) -> bool:
    """Whether a per-batch method of ``cls``, or a method it calls through ``self``, stores on
    ``self`` or calls a method of an object it keeps there (``self.queue.append(x)``)."""
    methods = {child.name: child for child in cls.body if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))}
    pending = [name for name in methods if name in per_batch]
    seen = set(pending)
    while pending:
        for node in ast.walk(methods[pending.pop()]):
            if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
                if not isinstance(node.ctx, ast.Load):
                    return True
            elif type(node) is ast.Subscript and not isinstance(node.ctx, ast.Load) and _on_self(node.value):
                return True
            elif type(node) is ast.Call and type(node.func) is ast.Attribute:
                receiver = node.func.value
                if type(receiver) is ast.Name and receiver.id == "self":
                    if node.func.attr in methods and node.func.attr not in seen:
                        seen.add(node.func.attr)
                        pending.append(node.func.attr)
                elif _on_self(receiver):
                    return True
    return False


def _on_self(node: ast.expr) -> bool:
    """``self.x`` or something read off it (``self.x.y``, ``self.x[i]``)."""
    while type(node) in (ast.Attribute, ast.Subscript):
        inner = node.value  # type: ignore[attr-defined]
        if type(node) is ast.Attribute and type(inner) is ast.Name and inner.id == "self":
            return True
        node = inner
    return False


def _annotation_names(annotation: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(annotation) if type(node) is ast.Name}


def _reports(node: ast.expr) -> bool:
    """``logger.info(...)``, ``writer.add_scalar(...)``: a reporting method called on a name."""
    return (
        type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in vocab.REPORTING_METHODS
        and type(node.func.value) is ast.Name
    )


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _statement_names(statement: ast.stmt, per_batch: Collection[str]) -> _Names:
    names = _Names()
    names.stateful_module = any(
        type(node) is ast.ClassDef and _changes_its_state(node, per_batch) for node in _classes_in(statement)
    )
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        names.context = True
        for alias in statement.names:
            bound = alias.asname or alias.name.split(".")[0]
            module = alias.name if isinstance(statement, ast.Import) else statement.module or ""
            names.imported[bound] = module == "torch" or module.startswith("torch.")
        return names
    # (node, locals of the enclosing functions, whether it is in a class body)
    stack: list[tuple[ast.AST, frozenset[str], bool]] = [(statement, frozenset(), False)]
    while stack:
        node, local, in_class = stack.pop()
        kind = type(node)
        if kind is ast.Expr and _reports(node.value):  # type: ignore[attr-defined]
            # ``logger.info(...)``: what it reads is walked, the logger itself learns nothing
            names.member_reads.add(node.value.func.attr)  # type: ignore[attr-defined]  # (a class of the file may define it)
            stack.extend((argument, local, in_class) for argument in _arguments(node.value))  # type: ignore[attr-defined]
            continue
        if kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name not in local:
                if isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    names.reads.add(name)
                elif in_class:
                    names.members.add(name)  # a class attribute, not a global
                else:
                    names.binds.add(name)
            continue
        if kind is ast.Attribute:
            value = node.value  # type: ignore[attr-defined]
            attribute = node.attr  # type: ignore[attr-defined]
            through_self = (type(value) is ast.Name and value.id in ("self", "cls")) or (
                type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "super"
            )
            if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                names.members.add(attribute)
            elif not through_self:
                names.member_reads.add(attribute)
            stack.append((value, local, in_class))
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            defined = node.name  # type: ignore[attr-defined]
            if in_class:
                names.members.add(defined)
            elif not local:
                names.binds.add(defined)
            for outer in (*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ())):  # type: ignore[attr-defined]
                stack.append((outer, local, False))
            if kind is ast.ClassDef:
                for child in node.body:  # type: ignore[attr-defined]
                    if type(child) in (ast.Assign, ast.AnnAssign):
                        targets = child.targets if type(child) is ast.Assign else [child.target]
                        names.members.update(t.id for t in targets if type(t) is ast.Name)
                    stack.append((child, local, True))
                continue
            inner, _ = _bound_in(node)  # type: ignore[arg-type]
            arguments = node.args  # type: ignore[attr-defined]
            for default in (*arguments.defaults, *arguments.kw_defaults):
                if default is not None:
                    stack.append((default, local, False))
            for annotated in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
                if annotated is not None and annotated.annotation is not None:
                    names.annotations |= _annotation_names(annotated.annotation)
            if node.returns is not None:  # type: ignore[attr-defined]
                names.annotations |= _annotation_names(node.returns)  # type: ignore[attr-defined]
            scope = local | inner | {_IN_A_FUNCTION}
            for child in node.body:  # type: ignore[attr-defined]
                stack.append((child, scope, False))
            continue
        if kind is ast.Lambda:
            inner, _ = _bound_in(node)  # type: ignore[arg-type]
            stack.extend((d, local, False) for d in node.args.defaults)  # type: ignore[attr-defined]
            stack.append((node.body, local | inner | {_IN_A_FUNCTION}, False))  # type: ignore[attr-defined]
            continue
        if kind in (ast.Global, ast.Nonlocal):
            continue
        if kind is ast.AnnAssign:
            names.annotations |= _annotation_names(node.annotation)  # type: ignore[attr-defined]
            stack.extend((child, local, in_class) for child in (node.target, node.value) if child is not None)  # type: ignore[attr-defined]
            continue
        stack.extend((child, local, in_class) for child in ast.iter_child_nodes(node))
    return names


def _classes_in(statement: ast.stmt) -> list[ast.stmt]:
    """The classes a top-level statement defines (itself, or inside ``if``/``try`` blocks)."""
    found: list[ast.stmt] = []
    stack = [statement]
    while stack:
        node = stack.pop()
        if type(node) is ast.ClassDef:
            found.append(node)
            stack.extend(child for child in node.body if type(child) is ast.ClassDef)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for name in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(node, name, None) or ())
    return found


@dataclass(frozen=True)
class Component:
    """Segments (indexes into the plan's) whose findings may depend on each other."""

    segments: tuple[int, ...]


@dataclass(frozen=True)
class Partition:
    #: Segments holding only imports: analysed with every component.
    context: tuple[int, ...]
    components: tuple[Component, ...]
    #: What each segment shows of its names, by the digest of its text (to store and pass back
    #: as ``known`` when the file is linted again).
    names: dict[str, Any] = field(default_factory=dict)
    #: Each segment's digest (``segment_digest``), by position.
    digests: tuple[str, ...] = ()


def _merged(parts: Sequence[_Names]) -> _Names:
    """What a segment of several statements (sharing a line) shows, as one."""
    merged = _Names(context=bool(parts) and all(part.context for part in parts))
    for part in parts:
        merged.imported.update(part.imported)
        merged.binds |= part.binds
        merged.reads |= part.reads
        merged.members |= part.members
        merged.member_reads |= part.member_reads
        merged.annotations |= part.annotations
        merged.stateful_module |= part.stateful_module
    return merged


def _stored(names: _Names) -> list[object]:
    return [names.context, names.imported, *map(sorted, (names.binds, names.reads, names.members, names.member_reads, names.annotations)), names.stateful_module]


def _loaded(item: list[Any]) -> _Names:
    context, imported, binds, reads, members, member_reads, annotations, stateful = item
    return _Names(bool(context), {str(k): bool(v) for k, v in imported.items()}, set(binds), set(reads), set(members), set(member_reads), bool(stateful), set(annotations))


def segment_digest(segment: Segment) -> str:
    return hashlib.sha1(segment.text.encode("utf-8", "surrogatepass")).hexdigest()


def partition(
    tree: ast.AST, segments: Sequence[Segment], per_batch: Collection[str], known: Optional[Mapping[str, Any]] = None
) -> Partition:
    """The components of the file whose kept segments are ``segments`` (``tree``: its ast;
    ``per_batch``: the names of per-batch methods). ``known``: what ``Partition.names`` gave
    for segments of an earlier version of the file (by segment digest), read instead of walking
    their ast again."""
    known = known or {}
    digests = [segment_digest(segment) for segment in segments]
    body = tree.body if isinstance(tree, ast.Module) else []
    starts = [segment.first_line for segment in segments]
    statements: list[list[ast.stmt]] = [[] for _ in segments]
    index = 0
    for statement in body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
        while index + 1 < len(starts) and starts[index + 1] <= first:
            index += 1
        statements[index].append(statement)
    per_segment: list[_Names] = []
    stored: dict[str, Any] = {}
    for digest, kept in zip(digests, statements):
        names = None
        if digest in known:
            with contextlib.suppress(TypeError, ValueError, AttributeError):
                names = _loaded(known[digest])
        if names is None:
            names = _merged([_statement_names(statement, per_batch) for statement in kept])
        per_segment.append(names)
        stored[digest] = known[digest] if digest in known else _stored(names)
    imported: dict[str, bool] = {}
    for names in per_segment:
        for name, from_torch in names.imported.items():
            imported[name] = imported.get(name, True) and from_torch
    bound_anywhere = {name for names in per_segment for name in names.binds}
    members = {name for names in per_segment for name in names.members}

    def links(name: str) -> bool:
        if name in bound_anywhere:
            return True
        if name in imported:
            return not imported[name]
        return name not in _BUILTINS

    parent = list(range(len(segments)))

    def find(item: int) -> int:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(items: Iterable[int]) -> None:
        roots = sorted({find(item) for item in items})
        for root in roots[1:]:
            parent[root] = roots[0]

    by_name: dict[str, set[int]] = {}
    by_member_definer: dict[str, set[int]] = {}
    member_users: dict[str, set[int]] = {}
    context: list[int] = []
    for position, names in enumerate(per_segment):
        if names.context:
            context.append(position)
            continue
        for name in names.reads | names.binds:
            if links(name):
                by_name.setdefault(name, set()).add(position)
        for name in names.annotations:
            if name in bound_anywhere:
                by_name.setdefault(name, set()).add(position)
        for name in names.members:
            by_member_definer.setdefault(name, set()).add(position)
        for name in names.member_reads:
            if name in members:
                member_users.setdefault(name, set()).add(position)
    # A class whose forward keeps state, and every loop that may call it (through an object whose
    # class the loop cannot see): the analysis carries the state into those loops.
    stateful = [p for p, names in enumerate(per_segment) if names.stateful_module]
    if stateful:
        union([*stateful, *(p for p in range(len(segments)) if p not in context and may_hold_a_finding(segments[p].text))])
    for positions in by_name.values():
        union(positions)
    for name, users in member_users.items():
        union(users | by_member_definer.get(name, set()))
    grouped: dict[int, list[int]] = {}
    in_context = set(context)
    for position in range(len(segments)):
        if position not in in_context:
            grouped.setdefault(find(position), []).append(position)
    return Partition(tuple(context), tuple(Component(tuple(group)) for group in grouped.values()), stored, tuple(digests))


def component_digest(partition_: Partition, component: Component) -> str:
    """A hash of the text a component's findings are computed from: its segments' and the
    context's (their digests), in file order (not their lines: a component moved by an edit
    above it keeps it)."""
    digest = hashlib.sha1()
    for position in sorted({*partition_.context, *component.segments}):
        marker = "C" if position in partition_.context else "S"
        digest.update(f"{marker}{partition_.digests[position]}".encode())
    return digest.hexdigest()


def segment_at(segments: Sequence[Segment], line: int) -> Optional[int]:
    """The index of the segment holding ``line``."""
    found = None
    for position, segment in enumerate(segments):
        if segment.first_line > line:
            break
        found = position
    return found
