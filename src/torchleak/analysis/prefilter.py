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
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Final, Optional

from torchleak.analysis.vocabulary import LOADER_NAME

#: Attributes whose presence makes a loop a training loop (``loss.backward()``, ``opt.step()``).
_STEP_ATTRIBUTES: Final = frozenset({"backward", "manual_backward", "step", "grad"})
#: Short module-level statements (imports, ``model = Net()``) are kept for the names they bind.
_SHORT_STATEMENT_LINES: Final = 20
_NO_GRAD_NAMES: Final = frozenset({"no_grad", "inference_mode"})


@dataclass
class _Summary:
    """What one top-level statement contains."""

    depth: int = 0
    loop: bool = False
    loader_loop: bool = False
    steps: bool = False
    per_batch: bool = False
    create_graph: bool = False
    imports: bool = False
    defines: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    no_grad_calls: set[str] = field(default_factory=set)

    @property
    def relevant(self) -> bool:
        return self.per_batch or self.create_graph or (self.loop and (self.steps or self.loader_loop))


@dataclass(frozen=True)
class Plan:
    depth: int
    #: The source with irrelevant statements blanked out, or None when nothing can be found.
    source: Optional[str]
    #: Functions this file calls inside ``with torch.no_grad():`` blocks (anywhere in it).
    no_grad_callees: frozenset[str] = frozenset()


def _identifier(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_no_grad_block(node: ast.AST) -> bool:
    return isinstance(node, (ast.With, ast.AsyncWith)) and any(
        isinstance(item.context_expr, ast.Call) and _identifier(item.context_expr.func) in _NO_GRAD_NAMES
        for item in node.items
    )


def _summarise(statement: ast.stmt, per_batch_methods: Collection[str], max_depth: int) -> _Summary:
    summary = _Summary()
    stack: list[tuple[ast.AST, int, bool]] = [(statement, 1, False)]
    while stack:
        node, level, under_no_grad = stack.pop()
        if level > summary.depth:
            summary.depth = level
            if level > max_depth:
                return summary
        if isinstance(node, (ast.For, ast.AsyncFor)):
            summary.loop = True
            if not summary.loader_loop:
                summary.loader_loop = any(
                    LOADER_NAME.search(_identifier(part)) is not None
                    for part in ast.walk(node.iter)
                    if isinstance(part, (ast.Name, ast.Attribute))
                )
        elif isinstance(node, ast.While):
            summary.loop = True
        elif isinstance(node, ast.Attribute):
            if node.attr in _STEP_ATTRIBUTES:
                summary.steps = True
        elif isinstance(node, ast.Call):
            name = _identifier(node.func)
            summary.calls.add(name)
            if under_no_grad:
                summary.no_grad_calls.add(name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            summary.defines.add(node.name)
            if node.name in per_batch_methods:
                summary.per_batch = True
        elif isinstance(node, ast.keyword):
            if node.arg == "create_graph":
                summary.create_graph = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            summary.imports = True
        inner = under_no_grad or _is_no_grad_block(node)
        stack.extend((child, level + 1, inner) for child in ast.iter_child_nodes(node))
    return summary


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _lines(source: str) -> list[str]:
    """Lines as CPython counts them (only \\n, \\r\\n and \\r end a line), with their endings."""
    return io.StringIO(source, newline="").readlines()


def _line_ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def plan(source: str, tree: ast.AST, per_batch_methods: Collection[str], max_depth: int) -> Plan:
    body = tree.body if isinstance(tree, ast.Module) else []
    summaries = [_summarise(statement, per_batch_methods, max_depth) for statement in body]
    depth = max((summary.depth for summary in summaries), default=0)
    no_grad_callees = frozenset().union(*(summary.no_grad_calls for summary in summaries))
    if depth > max_depth or not any(summary.relevant for summary in summaries):
        return Plan(depth, None, no_grad_callees)

    kept = {index for index, summary in enumerate(summaries) if summary.relevant}
    # The functions kept code calls, so that their return values are known (closure by name).
    definers: dict[str, set[int]] = {}
    for index, summary in enumerate(summaries):
        for name in summary.defines:
            definers.setdefault(name, set()).add(index)
    pending = list(kept)
    while pending:
        for name in summaries[pending.pop()].calls:
            for index in definers.get(name, ()):
                if index not in kept:
                    kept.add(index)
                    pending.append(index)
    for index, statement in enumerate(body):
        length = (statement.end_lineno or statement.lineno) - _first_line(statement) + 1
        if length <= _SHORT_STATEMENT_LINES and (
            not isinstance(statement, _COMPOUND) or summaries[index].imports
        ):
            kept.add(index)
    if len(kept) == len(body):
        return Plan(depth, source, no_grad_callees)
    keep_lines: set[int] = set()
    for index in kept:
        statement = body[index]
        keep_lines.update(range(_first_line(statement), (statement.end_lineno or statement.lineno) + 1))
    masked = "".join(
        line if number in keep_lines else _line_ending(line) for number, line in enumerate(_lines(source), start=1)
    )
    return Plan(depth, masked, no_grad_callees)


_COMPOUND: Final = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While,
    ast.If, ast.With, ast.AsyncWith, ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
    *((ast.Match,) if hasattr(ast, "Match") else ()),
)


def iter_kept_lines(plan_: Plan) -> Iterator[int]:
    """Line numbers that reach libcst (for tests and diagnostics)."""
    if plan_.source is None:
        return
    for number, line in enumerate(_lines(plan_.source), start=1):
        if line.strip():
            yield number
