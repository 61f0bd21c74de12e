"""``torchleak --fix``: lint, apply the rules' fixes that do not overlap, lint again.

Each rule builds its fix from the parsed module (``Rule.fix``, edits by node identity); this
module turns them into text. A pass applies every fix whose replaced nodes overlap no other's
(insertions next to a statement compose with replacements inside it), then the file is linted
again, since a fix can make or hide another finding; at most ``MAX_PASSES`` passes. A file
that CPython cannot parse, or that the engine did not analyse, is never changed, and a pass
whose output does not parse is dropped (a bug in a fix must not break a file).
"""

from __future__ import annotations

import ast
import difflib
import io
import sys
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Optional, TextIO, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from torchleak.analysis.flow import analyse
from torchleak.analysis.prefilter import called_under_no_grad
from torchleak.analysis.settings import Settings
from torchleak.engine import DEFAULT_SELECT, Result, check_source, is_selected
from torchleak.rule import Edit, Finding, Fix
from torchleak.rules import ALL_RULES

#: Passes over one file; each applies every non-overlapping fix, so two or three suffice in practice.
MAX_PASSES: Final = 8

FindingKey = tuple[int, int, str]


@dataclass(frozen=True)
class TextEdit:
    """Replace the text from (start_line, start_column) up to (end_line, end_column), exclusive,
    with ``content``. Lines and columns count from 1; columns count code points. An insertion has
    equal start and end."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Offer:
    """A fix as offered to editors and review bots (JSON and SARIF output)."""

    safety: str
    description: str
    edits: tuple[TextEdit, ...]
    reason: str = ""


@dataclass
class FixOutcome:
    """What fixing one source did."""

    original: str
    source: str
    #: The code and the fix of every finding fixed, in the order applied.
    applied: list[tuple[str, Fix]] = field(default_factory=list)
    #: The findings left in ``source``.
    remaining: list[Finding] = field(default_factory=list)
    #: How many of those an unsafe fix would address (``--unsafe-fixes``).
    unsafe_available: int = 0
    #: The last lint of ``source``: its syntax error or why it was not analysed.
    result: Result = field(default_factory=Result)

    @property
    def changed(self) -> bool:
        return self.source != self.original

    @property
    def fixed(self) -> int:
        return len(self.applied)


# --------------------------------------------------------------------------- planning


def candidate_fixes(
    source: str,
    findings: Sequence[Finding],
    *,
    select: Sequence[str] = DEFAULT_SELECT,
    ignore: Sequence[str] = (),
    settings: Settings = Settings(),
) -> tuple[cst.Module, dict[int, CodeRange], list[tuple[Finding, Fix]]]:
    """The fix each of ``findings`` (as the engine reported them, ``# noqa`` applied) has.

    The file is parsed and analysed whole (the engine may analyse only its relevant part),
    and every rule's reports are matched to the findings by position and code.
    """
    module = cst.parse_module(source)
    facts = analyse(module, settings, called_under_no_grad(ast.parse(source)))
    wanted: dict[FindingKey, Finding] = {(f.line, f.column, f.code): f for f in findings}
    rules = [rule() for rule in ALL_RULES if rule.fix_safety != "none" and is_selected(rule.code, select, ignore)]
    reports = [(rule, report) for rule in rules if any(key[2] == rule.code for key in wanted) for report in rule.check(facts)]
    positions: dict[int, CodeRange] = {}
    if not reports:
        return module, positions, []
    resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = {id(node): where for node, where in resolved.items()}
    fixes: list[tuple[Finding, Fix]] = []
    for rule, report in reports:
        start = positions[id(report.node)].start
        finding = wanted.pop((start.line, start.column, rule.code), None)
        if finding is None:
            continue
        try:
            fix = rule.fix(report, facts)
        except Exception:  # a bug in one fix leaves that finding unfixed, never the run broken
            fix = None
        if fix is not None and fix.edits:
            fixes.append((finding, fix))
    return module, positions, fixes


def _overlaps(first: CodeRange, second: CodeRange) -> bool:
    a = ((first.start.line, first.start.column), (first.end.line, first.end.column))
    b = ((second.start.line, second.start.column), (second.end.line, second.end.column))
    return a[0] < b[1] and b[0] < a[1] or a == b


def choose(fixes: Sequence[tuple[Finding, Fix]], positions: dict[int, CodeRange]) -> list[tuple[Finding, Fix]]:
    """The fixes, in order, whose replacements overlap no earlier chosen one's (the rest wait
    for the next pass)."""
    taken: list[CodeRange] = []
    chosen = []
    for finding, fix in sorted(fixes, key=lambda pair: (pair[0].line, pair[0].column, pair[0].code)):
        ranges = [positions[id(edit.node)] for edit in fix.edits if edit.replacement is not None and id(edit.node) in positions]
        if any(_overlaps(mine, other) for mine in ranges for other in taken):
            continue
        if any(_overlaps(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]):
            continue
        taken.extend(ranges)
        chosen.append((finding, fix))
    return chosen


# --------------------------------------------------------------------------- applying


class _Applier(cst.CSTTransformer):
    def __init__(self, edits: Iterable[Edit]) -> None:
        super().__init__()
        self.replacements: dict[int, cst.CSTNode] = {}
        self.around: dict[int, tuple[list[cst.BaseSmallStatement], list[cst.BaseSmallStatement]]] = {}
        for edit in edits:
            if edit.replacement is not None:
                self.replacements[id(edit.node)] = edit.replacement
            if edit.before or edit.after:
                before, after = self.around.setdefault(id(edit.node), ([], []))
                for statement, into in [*((s, before) for s in edit.before), *((s, after) for s in edit.after)]:
                    # Two reports of one state (TLK202 on two backward calls) insert the same line once.
                    if not any(statement.deep_equals(present) for present in into):
                        into.append(statement)

    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> Union[cst.CSTNode, cst.FlattenSentinel[cst.CSTNode]]:
        result = self.replacements.get(id(original_node), updated_node)
        around = self.around.get(id(original_node))
        if around is None:
            return result
        before, after = around
        if isinstance(original_node, cst.BaseSmallStatement):  # in a one-line suite: joined with ";"
            return cst.FlattenSentinel([*before, result, *after])
        lines = [cst.SimpleStatementLine(body=[statement]) for statement in before]
        trailing = [cst.SimpleStatementLine(body=[statement]) for statement in after]
        return cst.FlattenSentinel([*lines, result, *trailing])


def apply_edits(module: cst.Module, edits: Iterable[Edit]) -> str:
    """The module's code with ``edits`` applied; all else byte for byte as it was."""
    return module.visit(_Applier(edits)).code


def _validity(source: str) -> int:
    """2: CPython compiles it; 1: it parses (a compile-time error such as a statement put before
    ``global``, or a snippet's ``return`` outside a function); 0: neither."""
    try:
        compile(source, "<fixed>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        return 2
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        ast.parse(source)
        return 1
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0


def _apply_pass(module: cst.Module, chosen: list[tuple[Finding, Fix]]) -> tuple[str, list[tuple[Finding, Fix]]]:
    """Apply the chosen fixes together; if the result is less valid Python than the original
    (does not parse, or no longer compiles), only the fixes that keep it valid on their own."""
    required = max(_validity(module.code), 1)
    source = apply_edits(module, [edit for _, fix in chosen for edit in fix.edits])
    if _validity(source) >= required:
        return source, chosen
    kept = [pair for pair in chosen if _validity(apply_edits(module, pair[1].edits)) >= required]
    if not kept or len(kept) == len(chosen):
        return module.code, []
    return _apply_pass(module, kept)


# --------------------------------------------------------------------------- fixing a source


def fix_source(
    source: str,
    *,
    select: Sequence[str] = DEFAULT_SELECT,
    ignore: Sequence[str] = (),
    settings: Settings = Settings(),
    unsafe: bool = False,
    max_passes: int = MAX_PASSES,
) -> FixOutcome:
    """Apply the safe fixes (and the unsafe ones with ``unsafe``) to ``source``, pass by pass."""

    def lint(text: str) -> Result:
        return check_source(text, select=select, ignore=ignore, settings=settings, apply_noqa=True)

    result = lint(source)
    outcome = FixOutcome(original=source, source=source, result=result, remaining=list(result.findings))
    if result.syntax_error is not None or result.skipped is not None:
        return outcome
    for _ in range(max_passes):
        if not result.findings:
            break
        try:
            module, positions, fixes = candidate_fixes(source, result.findings, select=select, ignore=ignore, settings=settings)
        except Exception:  # libcst rejects it, or nests too deep: fix nothing, as the engine would lint nothing
            break
        allowed = [(finding, fix) for finding, fix in fixes if unsafe or fix.safety == "safe"]
        outcome.unsafe_available = len(fixes) - len(allowed)
        if not allowed:
            break
        new_source, applied = _apply_pass(module, choose(allowed, positions))
        if not applied or new_source == source:
            break
        new_result = lint(new_source)
        if new_result.syntax_error is not None or new_result.skipped is not None:
            break  # never leave a file worse off than it was
        source, result = new_source, new_result
        outcome.applied.extend((finding.code, fix) for finding, fix in applied)
        outcome.unsafe_available = 0
    outcome.source, outcome.result, outcome.remaining = source, result, list(result.findings)
    return outcome


# --------------------------------------------------------------------------- offering fixes as text


def text_edit(old: str, new: str) -> Optional[TextEdit]:
    """The one region that turns ``old`` into ``new``; a change spanning lines is widened to
    whole lines (an inserted statement is a whole line, not a tail and a head)."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start, end, new_end = prefix, len(old) - suffix, len(new) - suffix
    content = new[start:new_end]
    if "\n" in old[start:end] or "\n" in content:
        # Whole lines, less the lines both sides share.
        start = old.rfind("\n", 0, start) + 1
        if end < len(old) and (end == 0 or old[end - 1] != "\n"):
            newline = old.find("\n", end)
            moved = (len(old) if newline == -1 else newline + 1) - end
            end, new_end = end + moved, new_end + moved
        removed, added = old[start:end].splitlines(keepends=True), new[start:new_end].splitlines(keepends=True)
        while removed and added and removed[0] == added[0]:
            start += len(removed.pop(0))
            added.pop(0)
        while removed and added and removed[-1] == added[-1]:
            end -= len(removed.pop())
            added.pop()
        content = "".join(added)

    def where(offset: int) -> tuple[int, int]:
        line = old.count("\n", 0, offset) + 1
        return line, offset - (old.rfind("\n", 0, offset) + 1) + 1

    (start_line, start_column), (end_line, end_column) = where(start), where(end)
    return TextEdit(start_line, start_column, end_line, end_column, content)


def offered_fixes(
    source: str,
    findings: Sequence[Finding],
    *,
    select: Sequence[str] = DEFAULT_SELECT,
    ignore: Sequence[str] = (),
    settings: Settings = Settings(),
) -> dict[FindingKey, Offer]:
    """The fix of each finding that has one, as text edits on ``source``, keyed by
    (line, 0-based column, code). Never raises: a failure offers nothing."""
    if not findings:
        return {}
    try:
        module, _, fixes = candidate_fixes(source, findings, select=select, ignore=ignore, settings=settings)
        offers = {}
        for finding, fix in fixes:
            edits = [text_edit(source, apply_edits(module, [edit])) for edit in fix.edits]
            offers[(finding.line, finding.column, finding.code)] = Offer(
                fix.safety, fix.description, tuple(edit for edit in edits if edit is not None), fix.reason
            )
        return offers
    except Exception:  # offering fixes is a courtesy: it must not break the report
        return {}


def json_fix(offer: Offer) -> dict[str, object]:
    """The ``fix`` member of a JSON finding."""
    return {
        "safety": offer.safety,
        "description": offer.description,
        "reason": offer.reason,
        "edits": [
            {
                "start": {"line": edit.start_line, "column": edit.start_column},
                "end": {"line": edit.end_line, "column": edit.end_column},
                "content": edit.content,
            }
            for edit in offer.edits
        ],
    }


def sarif_fixes(offer: Offer, artifact: dict[str, str]) -> list[dict[str, object]]:
    """A SARIF result's ``fixes``: one fix, its replacements in ``artifact`` (columns in code
    points, as the run's ``columnKind`` says)."""
    return [
        {
            "description": {"text": f"{offer.description} ({offer.safety} fix)"},
            "artifactChanges": [
                {
                    "artifactLocation": artifact,
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": edit.start_line,
                                "startColumn": edit.start_column,
                                "endLine": edit.end_line,
                                "endColumn": edit.end_column,
                            },
                            "insertedContent": {"text": edit.content},
                        }
                        for edit in offer.edits
                    ],
                }
            ],
        }
    ]


# --------------------------------------------------------------------------- the command


def _read(data: bytes) -> tuple[str, str]:
    """The text and the encoding to write it back in (a BOM and a coding cookie survive)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _plural(count: int, word: str = "finding") -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def run(
    paths: Sequence[str],
    *,
    select: Sequence[str] = DEFAULT_SELECT,
    ignore_for: Callable[[str], Sequence[str]] = lambda path: (),
    settings: Settings = Settings(),
    unsafe: bool = False,
    diff: bool = False,
    stdin_name: str = "stdin",
    stdin: Optional[TextIO] = None,
    out: Optional[TextIO] = None,
    err: Optional[TextIO] = None,
) -> int:
    """Fix ``paths`` in place (``-``: stdin to stdout), or with ``diff`` print what would change.

    Prints the findings left and a summary. Exit status: with ``diff``, 1 when something would
    change; else 1 when findings remain or a file could not be read or parsed.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    fixed = remaining = unsafe_available = 0
    changed_files = 0
    failed = False
    for path in paths:
        name = stdin_name if path == "-" else path
        if path.endswith(".ipynb"):
            err.write(f"{name}: notebooks are not fixed; lint them without --fix\n")
            continue
        try:
            if path == "-":
                data = sys.stdin.buffer.read() if stdin is None else stdin.read().encode()
            else:
                data = Path(path).read_bytes()
            source, encoding = _read(data)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as error:
            err.write(f"{name}: cannot read: {error}\n")
            failed = True
            continue
        outcome = fix_source(source, select=select, ignore=ignore_for(name), settings=settings, unsafe=unsafe)
        problem = outcome.result.syntax_error
        if problem is not None:
            err.write(f"{name}:{problem.line}:{problem.column + 1}: syntax error: {problem.message} (left unchanged)\n")
            failed = True
            continue
        fixed += outcome.fixed
        remaining += len(outcome.remaining)
        unsafe_available += outcome.unsafe_available
        changed_files += outcome.changed
        if diff:
            out.writelines(
                difflib.unified_diff(
                    source.splitlines(keepends=True), outcome.source.splitlines(keepends=True), name, name
                )
            )
            continue
        if path == "-":
            out.write(outcome.source)
        elif outcome.changed:
            Path(path).write_bytes(outcome.source.encode(encoding))
        for finding in outcome.remaining:
            (err if path == "-" else out).write(f"{name}:{finding.line}:{finding.column + 1}: {finding.code} {finding.message}\n")
    more = f"; {unsafe_available} more fixable with --unsafe-fixes" if unsafe_available else ""
    if diff:
        err.write(f"Would fix {_plural(fixed)} in {_plural(changed_files, 'file')} ({remaining} remaining{more}).\n")
        return 1 if changed_files or failed else 0
    (err if "-" in paths else out).write(f"Fixed {_plural(fixed)} ({remaining} remaining{more}).\n")
    return 1 if remaining or failed else 0
