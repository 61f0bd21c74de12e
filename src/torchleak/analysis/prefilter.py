"""Decide on the ast, before any libcst parse, whether a file can hold a finding at all.

libcst's parse costs about nine times ``ast.parse``, and flake8 hands plugins the ast for free.
Every finding needs a loop, ``create_graph``, a forward hook, or a method called once per batch
(``training_step``; a ``forward`` only when it keeps something on ``self``). A file with none of
them is not parsed by libcst. A file with any of them is analysed whole: summaries flow from
callers to callees and back, so no part of it can be proved irrelevant. It reaches libcst as one
segment per top-level statement, so that positions are computed only where a finding is.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Final, Optional

from torchleak.analysis import torch_knowledge as vocab

_NO_GRAD_NAMES: Final = frozenset({"no_grad", "inference_mode"})


@dataclass
class _Summary:
    """What one top-level statement's text shows (a superset of what its code does)."""

    relevant: bool = False
    mentions_no_grad: bool = False


@dataclass(frozen=True)
class Segment:
    """Consecutive kept top-level statements: their first line in the file and their text."""

    first_line: int
    text: str


@dataclass(frozen=True)
class Plan:
    depth: int
    #: The parts of the file to analyse; empty when nothing in it can be found.
    segments: tuple[Segment, ...] = ()
    #: Functions this file calls inside ``with torch.no_grad():`` blocks (anywhere in it): ``f``
    #: for a function called by its bare name, ``Class.m`` for a method called through ``self``.
    no_grad_callees: frozenset[str] = frozenset()


def _identifier(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def is_no_grad_block(node: ast.AST) -> bool:
    """``with torch.no_grad():``, or a function decorated ``@torch.no_grad()`` (its callees run
    without grad too)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return any(
            _switches_grad_off(_identifier(decorator.func if isinstance(decorator, ast.Call) else decorator))
            for decorator in node.decorator_list
        )
    return isinstance(node, (ast.With, ast.AsyncWith)) and any(
        isinstance(item.context_expr, ast.Call) and _switches_grad_off(_identifier(item.context_expr.func))
        for item in node.items
    )


def _switches_grad_off(identifier: str) -> bool:
    return identifier in _NO_GRAD_NAMES or vocab.NO_GRAD_WRAPPER_NAME.search(identifier) is not None


def _statements(nodes: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``nodes``, nested bodies included (statements only live in bodies, so
    this finds every ``def`` and ``with`` without visiting a single expression)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_child_statements(node))


_BODIES: Final = ("body", "orelse", "handlers", "finalbody", "cases")


@dataclass
class _ClassShape:
    """A class of the file as the ast shows it: its base names and the methods it defines."""

    bases: list[str]
    methods: set[str]


def _classes(tree: ast.AST) -> dict[str, _ClassShape]:
    shapes: dict[str, _ClassShape] = {}
    for node in _statements(tree.body if isinstance(tree, ast.Module) else []):
        if isinstance(node, ast.ClassDef):
            shape = shapes.setdefault(node.name, _ClassShape([], set()))
            shape.bases += [_identifier(base) for base in node.bases]
            shape.methods |= {child.name for child in _class_level(node) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return shapes


def _class_level(node: ast.ClassDef) -> list[ast.stmt]:
    """The statements of a class body, through ``if``/``try`` blocks but not into methods."""
    found: list[ast.stmt] = []
    stack: list[ast.stmt] = list(node.body)
    while stack:
        child = stack.pop()
        found.append(child)
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(_child_statements(child))
    return found


def _defining_class(classes: dict[str, _ClassShape], cls: str, method: str) -> Optional[str]:
    """The class of the file whose ``method`` an instance of ``cls`` runs: ``cls`` itself, else
    its nearest base in the file that defines it."""
    pending, seen = [cls], set()
    while pending:
        name = pending.pop(0)
        shape = classes.get(name)
        if shape is None or name in seen:
            continue
        seen.add(name)
        if method in shape.methods:
            return name
        pending += shape.bases
    return None


def _called(node: ast.AST, cls: Optional[str], classes: dict[str, _ClassShape]) -> set[str]:
    """The functions the calls in ``node`` name, as far as the ast shows: ``f(...)`` the file's
    function ``f`` (a bare name never reaches a method), ``self.m(...)`` in a method of ``cls``
    the method ``Class.m`` an instance of ``cls`` runs. A call on another receiver is left out:
    the ast does not know its class, and a method of the same name elsewhere is another one."""
    keys: set[str] = set()
    for inner in ast.walk(node):
        if not isinstance(inner, ast.Call):
            continue
        func = inner.func
        if isinstance(func, ast.Name):
            keys.add(func.id)
        elif isinstance(func, ast.Attribute) and cls is not None and isinstance(func.value, ast.Name) and func.value.id == "self":
            owner = _defining_class(classes, cls, func.attr)
            if owner is not None:
                keys.add(f"{owner}.{func.attr}")
    return keys


def _definitions(tree: ast.AST) -> dict[str, list[tuple[ast.AST, Optional[str]]]]:
    """Each function of the file by key (``f``; ``Class.m`` for a method), with the class whose
    ``self`` it sees (a closure inside a method sees the method's)."""
    found: dict[str, list[tuple[ast.AST, Optional[str]]]] = {}
    stack: list[tuple[ast.stmt, Optional[str], bool]] = [
        (node, None, False) for node in (tree.body if isinstance(tree, ast.Module) else [])
    ]
    while stack:
        node, cls, in_class_body = stack.pop()
        if isinstance(node, ast.ClassDef):
            stack += [(child, node.name, True) for child in node.body]
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(f"{cls}.{node.name}" if in_class_body else node.name, []).append((node, cls))
            in_class_body = False
        stack += [(child, cls, in_class_body) for child in _child_statements(node)]
    return found


def _close_over_callees(tree: ast.AST, names: set[str], classes: dict[str, _ClassShape]) -> set[str]:
    """The functions called, directly or through others, by functions in ``names`` (keys as
    ``_called`` gives them; ``classes``: the file's, as ``_classes`` gives them)."""
    definitions = _definitions(tree)
    closed = set(names)
    pending = list(names)
    while pending:
        # Only the functions reached are walked for their calls.
        for definition, cls in definitions.get(pending.pop(), ()):
            for callee in _called(definition, cls, classes):
                if callee and callee not in closed and callee in definitions:
                    closed.add(callee)
                    pending.append(callee)
    return closed


_LOOP: Final = re.compile(r"^\s*(?:async\s+)?(?:for|while)\b", re.MULTILINE)


#: In ``forward`` only state kept on ``self`` can leak: ``self.x += ...``, ``self.cache.append(...)``,
#: a helper kept on ``self`` updating itself (``self.pool_stat.update(h.mean(0))``), or an
#: assignment to ``self.x`` (a carried state such as ``out, self.h = self.rnn(x, self.h)``).
_SELF_STATE: Final = re.compile(
    r"self\.[\w.]+(?:\[[^\]\n]*\])?\s*[-+*/]=|self\.[\w.]+\.(?:append|extend|insert|appendleft|put|update|push|add|record|track)\("
    r"|^[ \t]*[^\n#=(]*\bself\.\w+[^\n=(]*=(?!=)",
    re.MULTILINE,
)


def computes_what_it_keeps(tree: ast.AST, qualified: str) -> bool:
    """The method ``Class.method`` of the file keeps on ``self`` a value it computes from its
    parameters (``self.loss_sum += F.cross_entropy(logits, y)``, ``self.gap = m * self.gap + (1 -
    m) * (student - teacher)``), not one of them as given (``self.total += value * n``,
    ``self.losses.append(loss)``): a caller could not convert it, the fix is in the method."""
    cls, _, name = qualified.rpartition(".")
    for definition in getattr(tree, "body", ()):
        if isinstance(definition, ast.ClassDef) and definition.name == cls:
            for member in definition.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name == name:
                    given = {argument.arg for argument in member.args.args[1:] + member.args.kwonlyargs}
                    given |= {star.arg for star in (member.args.vararg, member.args.kwarg) if star is not None}  # (``*args``: ``args[2]``)
                    computed = _locals_computed_from(member, given)
                    return any(_computed_from(kept, given | computed) or _value_names(kept) & computed for kept in _kept_on_self(member))
    return False


def _names(node: ast.AST) -> set[str]:
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def _bound_names(target: ast.expr) -> set[str]:
    """The local names an assignment target binds (``a, (b, c)``; not ``self.x`` or ``d[k]``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _bound_names(element)}
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return set()


def _value_names(node: ast.AST) -> set[str]:
    """The names a value is made of, leaving out those only used to index it (``points[idx]``
    keeps a row of ``points``, whatever computed ``idx``)."""
    found: set[str] = set()
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name):
            found.add(current.id)
        elif isinstance(current, ast.Subscript):
            stack.append(current.value)
        else:
            stack.extend(ast.iter_child_nodes(current))
    return found


def _locals_computed_from(method: ast.AST, given: set[str]) -> set[str]:
    """Locals the method computes from its parameters (``state`` of ``action, state =
    self.model(x, h)``); ``given`` grows by what only unpacks them (``_, _, a = y_pred``)."""
    computed: set[str] = set()
    assignments = [node for node in ast.walk(method) if isinstance(node, ast.Assign)]
    for _ in range(3):  # (a few rounds: chains of locals are short)
        for node in assignments:
            used = _names(node.value) & (given | computed)
            if not used:
                continue
            targets = {name for target in node.targets for name in _bound_names(target)}
            if _computed_from(node.value, given | computed) or used & computed:
                computed |= targets
            else:
                given |= targets
    return computed


def _kept_on_self(method: ast.AST) -> Iterator[ast.expr]:
    """The values a method assigns, adds or appends to attributes of ``self``."""
    for node in ast.walk(method):
        if isinstance(node, ast.AugAssign) and _on_self(node.target):
            yield node.value
        elif isinstance(node, ast.Assign) and any(_on_self(target) for target in node.targets):
            yield node.value
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
            and _on_self(node.func.value) and node.args
        ):
            yield node.args[0]


#: Calls that keep what they are given as it is (or make a fresh tensor of its shape).
_PACKING: Final = frozenset({"detach", "item", "clone", "cpu", "to", "stack", "cat", "tuple", "list", "dict", "float", "int", "len"})


def _on_self(target: ast.expr) -> bool:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
        if isinstance(target, ast.Name) and target.id == "self":
            return True
    return False


def _computed_from(value: ast.expr, parameters: set[str]) -> bool:
    """A call on the parameters, or a sum or difference of two of them (a scaling by a count,
    ``value * n``, keeps the value as given)."""
    for node in ast.walk(value):
        used = _names(node) & parameters
        if isinstance(node, ast.Call) and used and _identifier(node.func) not in _PACKING and not _identifier(node.func).endswith("_like"):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            if _names(node.left) & parameters and _names(node.right) & parameters:
                return True
    return False


def may_hold_a_finding(text: str) -> bool:
    """A loop (the analysis classifies loops by what their bodies run, which a regular
    expression cannot tell), ``create_graph``, a forward hook, or ``retain_graph`` (a helper
    without a loop that another module of the project calls per batch)."""
    return "create_graph" in text or "retain_graph" in text or "register_forward_hook" in text or _LOOP.search(text) is not None


def _summarise(statement: ast.stmt, text: str, per_batch: re.Pattern[str], lines: list[str]) -> _Summary:
    """Regular expressions run in C: much cheaper than walking the statement's ast."""
    relevant = may_hold_a_finding(text) or any(
        _per_batch_matters(statement, match.group(1), lines) for match in per_batch.finditer(text)
    )
    return _Summary(relevant, "no_grad" in text or "inference_mode" in text)


def _per_batch_matters(statement: ast.stmt, name: str, lines: list[str]) -> bool:
    """Every per-batch method matters, except a ``forward`` that keeps nothing on ``self``."""
    if name != "forward":
        return True
    methods = statement.body if isinstance(statement, ast.ClassDef) else [statement]
    return any(
        isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        and method.name == "forward"
        and _SELF_STATE.search("".join(lines[method.lineno - 1 : method.end_lineno or method.lineno])) is not None
        for method in methods
    )


def _no_grad_calls(statement: ast.stmt, classes: dict[str, _ClassShape]) -> set[str]:
    """What the calls inside the statement's no-grad blocks name (a block inside one is part of
    it), as ``_called`` resolves them."""
    calls: set[str] = set()
    stack: list[tuple[ast.stmt, Optional[str]]] = [(statement, None)]
    while stack:
        node, cls = stack.pop()
        if is_no_grad_block(node):
            calls |= _called(node, cls, classes)
            continue
        inner_cls = node.name if isinstance(node, ast.ClassDef) else cls
        stack.extend((child, inner_cls) for child in _child_statements(node))
    return calls


def _child_statements(node: ast.stmt) -> list[ast.stmt]:
    children: list[ast.stmt] = []
    for name in _BODIES:
        for child in getattr(node, name, None) or ():
            if isinstance(child, ast.stmt):
                children.append(child)
            else:
                children.extend(getattr(child, "body", ()))
    return children


#: Fields that hold a single leaf node (``Load()``, ``Add()``): one level deeper, nothing below.
_LEAF_FIELDS: Final = frozenset({"ctx", "op", "ops"})
#: Fields that never hold a node.
_SCALAR_FIELDS: Final = frozenset(
    {"id", "attr", "arg", "kind", "type_comment", "asname", "conversion", "is_async", "level", "module", "name"}
)
_walk_plans: dict[type, tuple[tuple[str, ...], bool]] = {}


def _walk_plan(cls: type) -> tuple[tuple[str, ...], bool]:
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    plan_ = (
        tuple(name for name in fields if name not in _LEAF_FIELDS and name not in _SCALAR_FIELDS),
        any(name in _LEAF_FIELDS for name in fields),
    )
    _walk_plans[cls] = plan_
    return plan_


def _depth(statement: ast.stmt, max_depth: int) -> int:
    """The statement's depth as ``ast.iter_child_nodes`` counts it (the statement is level 1,
    ``Load()`` and operator leaves count). Stops once past ``max_depth``.

    The walk skips the leaf fields and the fields that hold names, which halves its cost on real
    code (``ast.walk`` costs about twice ``ast.parse`` and was most of the pre-filter's time).
    """
    depth = 0
    stack: list[tuple[ast.AST, int]] = [(statement, 1)]
    pop, push, plans = stack.pop, stack.append, _walk_plans
    while stack:
        node, level = pop()
        fields, has_leaf = plans.get(type(node)) or _walk_plan(type(node))
        reached = level + 1 if has_leaf else level
        if reached > depth:
            depth = reached
            if depth > max_depth:
                break
        level += 1
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push((item, level))
            elif isinstance(value, ast.AST):
                push((value, level))
    return depth


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _lines(source: str) -> list[str]:
    """Lines as CPython counts them (only \\n, \\r\\n and \\r end a line), with their endings."""
    return io.StringIO(source, newline="").readlines()


def _line_ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def called_under_no_grad(tree: ast.AST) -> frozenset[str]:
    """Names of the functions a file calls inside ``with torch.no_grad():`` blocks.

    ``def predict(model, loader)`` called as ``with torch.no_grad(): predict(...)`` runs without
    grad although its own body does not say so; the analysis treats such functions as no-grad.
    """
    body = tree.body if isinstance(tree, ast.Module) else []
    classes = _classes(tree)
    direct: set[str] = set().union(*(_no_grad_calls(statement, classes) for statement in body))
    return frozenset(_close_over_callees(tree, direct, classes))


def plan(source: str, tree: ast.AST, per_batch_methods: Collection[str], max_depth: int) -> Plan:
    """Which parts of ``source`` to analyse (all or nothing: see below) and what the analysis
    needs from the rest. A plan without segments has nothing to analyse: its other fields are
    then left empty."""
    per_batch = re.compile(r"\bdef\s+(" + "|".join(map(re.escape, sorted(per_batch_methods))) + r")\b")
    # The same test as for each statement below, on the whole file: most files stop here.
    if not may_hold_a_finding(source) and per_batch.search(source) is None:
        return Plan(0)
    body = tree.body if isinstance(tree, ast.Module) else []
    lines = _lines(source)
    spans = [(_first_line(statement), statement.end_lineno or statement.lineno) for statement in body]
    texts = ["".join(lines[first - 1 : last]) for first, last in spans]
    summaries = [_summarise(statement, text, per_batch, lines) for statement, text in zip(body, texts)]
    if not any(summary.relevant for summary in summaries):
        return Plan(0)
    # Summaries flow both ways (a caller's use of a result decides a callee's finding, a class
    # defined anywhere decides what a call builds): once anything is relevant, all of the file is.
    # libcst's walk recurses per level: a file too deep for it is not analysed.
    depth = 0
    for statement in body:
        depth = max(depth, _depth(statement, max_depth))
        if depth > max_depth:
            return Plan(depth)
    no_grad_callees: set[str] = set()
    classes = _classes(tree) if any(summary.mentions_no_grad for summary in summaries) else {}
    for statement, summary in zip(body, summaries):
        if summary.mentions_no_grad:
            no_grad_callees |= _no_grad_calls(statement, classes)
    if no_grad_callees:
        no_grad_callees = _close_over_callees(tree, no_grad_callees, classes)
    return Plan(depth, _segments(lines, spans), frozenset(no_grad_callees))


def _segments(lines: list[str], spans: list[tuple[int, int]]) -> tuple[Segment, ...]:
    """One segment per top-level statement (statements sharing a line stay together), so that
    positions are computed only for the statements that hold a finding."""
    ranges: list[list[int]] = []
    for first, last in spans:
        if ranges and first <= ranges[-1][1]:
            ranges[-1][1] = max(last, ranges[-1][1])
        else:
            ranges.append([first, last])
    return tuple(Segment(first, "".join(lines[first - 1 : last])) for first, last in ranges)


def all_segments(source: str, tree: ast.Module) -> tuple[Segment, ...]:
    """Every top-level statement of ``source`` as segments, as ``plan`` cuts them (for a
    module summarised in parts, whatever the pre-filter would keep of it)."""
    return _segments(_lines(source), [(_first_line(statement), statement.end_lineno or statement.lineno) for statement in tree.body])


def iter_kept_lines(plan_: Plan) -> Iterator[int]:
    """Line numbers that reach libcst (for tests and diagnostics)."""
    for segment in plan_.segments:
        for offset, line in enumerate(_lines(segment.text)):
            if line.strip():
                yield segment.first_line + offset
