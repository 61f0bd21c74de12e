"""Decide on the ast, before any libcst parse, which parts of a file can hold a finding.

libcst's parse costs about nine times ``ast.parse``, and flake8 hands plugins the ast for free.
Every rule needs a loop over batches (a loop with a backward or optimizer step in it, or a loop
over something named like a loader), a method called once per batch, or ``create_graph=True``.
So only the top-level statements that contain one of those are handed to libcst, together
with what they may need from the rest of the file (imports, short module-level assignments,
and the functions they call). Everything else is replaced by empty lines, which keeps every
line and column where it was.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Final, Optional

from torchleak.analysis.torch_knowledge import LOADER_NAME

#: Short module-level statements (imports, ``model = Net()``) are kept for the names they bind.
_SHORT_STATEMENT_LINES: Final = 20
_NO_GRAD_NAMES: Final = frozenset({"no_grad", "inference_mode"})


@dataclass
class _Summary:
    """What one top-level statement's text shows (a superset of what its code does)."""

    relevant: bool = False
    imports: bool = False
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
    #: Functions this file calls inside ``with torch.no_grad():`` blocks (anywhere in it).
    no_grad_callees: frozenset[str] = frozenset()


def _identifier(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_no_grad_block(node: ast.AST) -> bool:
    """``with torch.no_grad():``, or a function decorated ``@torch.no_grad()`` (its callees run
    without grad too)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return any(
            _identifier(decorator.func if isinstance(decorator, ast.Call) else decorator) in _NO_GRAD_NAMES
            for decorator in node.decorator_list
        )
    return isinstance(node, (ast.With, ast.AsyncWith)) and any(
        isinstance(item.context_expr, ast.Call) and _identifier(item.context_expr.func) in _NO_GRAD_NAMES
        for item in node.items
    )


def _close_over_callees(tree: ast.AST, names: set[str]) -> set[str]:
    """The functions called, directly or through others, by functions in ``names``."""
    calls: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls.setdefault(node.name, set()).update(
                _identifier(inner.func) for inner in ast.walk(node) if isinstance(inner, ast.Call)
            )
    closed = set(names)
    pending = list(names)
    while pending:
        for callee in calls.get(pending.pop(), ()):
            if callee and callee not in closed and callee in calls:
                closed.add(callee)
                pending.append(callee)
    return closed


_LOOP: Final = re.compile(r"^\s*(?:async\s+)?(?:for|while)\b", re.MULTILINE)
_STEP: Final = re.compile(r"\.(?:backward|manual_backward|step|grad)\b")
_LOADER_LOOP: Final = re.compile(r"^\s*(?:async\s+)?for\b[^\n]*\bin\b[^\n]*(?:" + LOADER_NAME.pattern + ")", re.MULTILINE | re.IGNORECASE)
_IMPORT: Final = re.compile(r"^\s*(?:import|from)\s", re.MULTILINE)
_CALLED: Final = re.compile(r"(\w+)\s*\(")


#: In ``forward`` only state kept on ``self`` can leak: ``self.x += ...``, ``self.cache.append(...)``,
#: or an assignment to ``self.x`` (a carried state such as ``out, self.h = self.rnn(x, self.h)``).
_SELF_STATE: Final = re.compile(
    r"self\.[\w.]+(?:\[[^\]\n]*\])?\s*[-+*/]=|self\.[\w.]+\.(?:append|extend|insert|appendleft|put)\("
    r"|^[ \t]*[^\n#=(]*\bself\.\w+[^\n=(]*=(?!=)",
    re.MULTILINE,
)


def _may_hold_a_finding(text: str) -> bool:
    """A loop (the analysis classifies loops by what their bodies run, which a regular
    expression cannot tell), ``create_graph``, or a forward hook."""
    return "create_graph" in text or "register_forward_hook" in text or _LOOP.search(text) is not None


def _summarise(statement: ast.stmt, text: str, per_batch: re.Pattern[str], lines: list[str]) -> _Summary:
    """Regular expressions run in C: much cheaper than walking the statement's ast."""
    relevant = _may_hold_a_finding(text) or any(
        _per_batch_matters(statement, match.group(1), lines) for match in per_batch.finditer(text)
    )
    return _Summary(relevant, _IMPORT.search(text) is not None, "no_grad" in text or "inference_mode" in text)


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


def _depth_and_no_grad_calls(statement: ast.stmt, max_depth: Optional[int] = None) -> tuple[int, set[str]]:
    """The statement's depth (the walk stops past ``max_depth``) and its calls under no-grad blocks."""
    depth = 0
    calls: set[str] = set()
    stack: list[tuple[ast.AST, int, bool]] = [(statement, 1, False)]
    while stack:
        node, level, under_no_grad = stack.pop()
        if level > depth:
            depth = level
            if max_depth is not None and depth > max_depth:
                break
        if under_no_grad and isinstance(node, ast.Call):
            calls.add(_identifier(node.func))
        inner = under_no_grad or _is_no_grad_block(node)
        stack.extend((child, level + 1, inner) for child in ast.iter_child_nodes(node))
    return depth, calls


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
    direct: set[str] = set().union(*(_depth_and_no_grad_calls(statement)[1] for statement in body))
    return frozenset(_close_over_callees(tree, direct))


def plan(source: str, tree: ast.AST, per_batch_methods: Collection[str], max_depth: int) -> Plan:
    per_batch = re.compile(r"\bdef\s+(" + "|".join(map(re.escape, sorted(per_batch_methods))) + r")\b")
    # The same test as for each statement below, on the whole file: most files stop here.
    if not _may_hold_a_finding(source) and per_batch.search(source) is None:
        return Plan(0)
    body = tree.body if isinstance(tree, ast.Module) else []
    lines = _lines(source)
    spans = [(_first_line(statement), statement.end_lineno or statement.lineno) for statement in body]
    texts = ["".join(lines[first - 1 : last]) for first, last in spans]
    summaries = [_summarise(statement, text, per_batch, lines) for statement, text in zip(body, texts)]
    no_grad_callees: set[str] = set()
    for statement, summary in zip(body, summaries):
        if summary.mentions_no_grad:
            no_grad_callees |= _depth_and_no_grad_calls(statement, max_depth)[1]
    no_grad_callees = _close_over_callees(tree, no_grad_callees) if no_grad_callees else no_grad_callees
    if not any(summary.relevant for summary in summaries):
        return Plan(0, (), frozenset(no_grad_callees))

    # Summaries flow both ways (a caller's use of a result decides a callee's finding, a class
    # defined anywhere decides what a call builds): once anything is relevant, all of the file is.
    kept = set(range(len(body)))
    # The functions kept code calls, so that their return values are known (closure by name).
    definers: dict[str, set[int]] = {}
    for index, statement in enumerate(body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            definers.setdefault(statement.name, set()).add(index)
        elif isinstance(statement, ast.ClassDef):
            # A class is needed where it is built or one of its methods is called (``meter.update``).
            definers.setdefault(statement.name, set()).add(index)
            for member in statement.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    definers.setdefault(member.name, set()).add(index)
    pending = list(kept)
    while pending:
        for name in _CALLED.findall(texts[pending.pop()]):
            for index in definers.get(name, ()):
                if index not in kept:
                    kept.add(index)
                    pending.append(index)
    for index, statement in enumerate(body):
        first, last = spans[index]
        if last - first + 1 <= _SHORT_STATEMENT_LINES and (
            not isinstance(statement, _COMPOUND) or summaries[index].imports
        ):
            kept.add(index)
    # Only what reaches libcst needs the depth check (libcst's walk recurses per level).
    depth = max(_depth_and_no_grad_calls(body[index], max_depth)[0] for index in kept)
    if depth > max_depth:
        return Plan(depth, (), frozenset(no_grad_callees))
    # Adjacent kept statements form one segment (with the comments and blank lines between).
    lines = _lines(source)
    ranges: list[list[int]] = []
    for index in sorted(kept):
        first, last = spans[index]
        # One segment per top-level statement (statements sharing a line stay together), so that
        # positions are computed only for the statements that hold a finding.
        if ranges and index - 1 in kept and first <= ranges[-1][1]:
            ranges[-1][1] = max(last, ranges[-1][1])
        else:
            ranges.append([first, last])
    segments = tuple(Segment(first, "".join(lines[first - 1 : last])) for first, last in ranges)
    return Plan(depth, segments, frozenset(no_grad_callees))


_COMPOUND: Final = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While,
    ast.If, ast.With, ast.AsyncWith, ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
    *((ast.Match,) if hasattr(ast, "Match") else ()),
)


def iter_kept_lines(plan_: Plan) -> Iterator[int]:
    """Line numbers that reach libcst (for tests and diagnostics)."""
    for segment in plan_.segments:
        for offset, line in enumerate(_lines(segment.text)):
            if line.strip():
                yield segment.first_line + offset
