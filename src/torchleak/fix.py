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
import json
import re
import sys
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Optional, TextIO, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from torchleak.analysis.flow import analyse
from torchleak.analysis.prefilter import called_under_no_grad
from torchleak.analysis.settings import Settings
from torchleak.engine import DEFAULT_SELECT, Result, check_source, is_selected
from torchleak.notebooks import NotebookError, extract
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


# --------------------------------------------------------------------------- notebooks


_LINES: Final = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class NotebookFixError(ValueError):
    """The fixed code could not be put back into the notebook's cells."""


@dataclass
class NotebookFix:
    """What fixing a notebook's code cells gave: its new text, and the cells that changed."""

    text: str
    #: (cell number, source before, source after) of each changed cell.
    changed_cells: list[tuple[int, str, str]]


def _cell_text(cell: dict[str, object]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _dump_like(document: object, original: str) -> str:
    """The document as JSON, written the way the original file was (nbformat writes indent 1,
    sorted keys, unescaped text); so a notebook whose cells did not change is byte for byte the same."""
    for indent in (1, 2, 4, None):
        for sort_keys in (True, False):
            for ensure_ascii in (False, True):
                text = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
                if text.rstrip("\n") == original.rstrip("\n"):
                    return text + ("\n" if original.endswith("\n") else "")
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def fix_notebook(text: str, fixed_source: str) -> NotebookFix:
    """Put ``fixed_source`` (the fixed version of the notebook's joined code, see
    ``notebooks.extract``) back into the code cells of ``text``; outputs, metadata and the other
    cells are untouched, and IPython magics keep their original lines. Raises NotebookFixError."""
    document = json.loads(text)
    notebook = extract(text)
    cells = document["cells"]
    raw: dict[int, list[str]] = {number: _LINES.findall(_cell_text(cells[number - 1])) for number, _ in set(notebook.lines)}
    before = [line + "\n" for line in notebook.source.split("\n")[:-1]]
    after = _LINES.findall(fixed_source)
    if len(before) != len(notebook.lines):
        raise NotebookFixError("the notebook's lines do not map to its cells")
    rebuilt: dict[int, list[str]] = {number: [] for number in raw}
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for operation, i1, i2, j1, j2 in matcher.get_opcodes():
        if operation == "equal":
            for index in range(i1, i2):
                cell, line = notebook.lines[index]
                rebuilt[cell].append(raw[cell][line - 1])
            continue
        owners = {notebook.lines[index][0] for index in range(i1, i2)}
        if not owners:  # an insertion: at a cell's first line it follows the previous line
            at = i1 - 1 if i1 == len(before) or (i1 > 0 and notebook.lines[i1][1] == 1) else i1
            owners = {notebook.lines[max(at, 0)][0]}
        if len(owners) != 1:
            raise NotebookFixError("a fix spans two cells")
        rebuilt[owners.pop()].extend(after[j1:j2])
    changed = []
    for number, lines in sorted(rebuilt.items()):
        old = _cell_text(cells[number - 1])
        new = "".join(lines)
        if not old.endswith(("\n", "\r")) and new.endswith("\n"):
            new = new[:-1]  # Jupyter stores a cell without its last newline
        if new == old:
            continue
        changed.append((number, old, new))
        source = cells[number - 1].get("source")
        cells[number - 1]["source"] = new.splitlines(keepends=True) if isinstance(source, list) else new
    result = _dump_like(document, text)
    if extract(result).source != fixed_source:
        raise NotebookFixError("the fixed cells do not give back the fixed code")
    return NotebookFix(result, changed)


# --------------------------------------------------------------------------- the command


Writer = Callable[..., None]


def fix_files(
    targets: Sequence[tuple[str, Any]],
    *,
    unsafe: bool = False,
    diff: bool = False,
    stdin_name: str = "stdin",
    writer: Optional[Writer] = None,
    out: Optional[TextIO] = None,
    err: Optional[TextIO] = None,
    quiet: bool = False,
    color: bool = False,
    extra_reports: Sequence[Any] = (),
    stdin: Optional[TextIO] = None,
) -> int:
    """Fix each (path, job) in place (``-``: stdin to stdout; notebooks: their code cells), or
    with ``diff`` print what would change. ``job`` has ``select``, ``ignore_for(path)`` and
    ``settings``.

    Prints the findings left with ``writer`` (the text format by default) and a summary. Exit
    status: with ``diff``, 1 when something would change; else 1 when findings remain or a file
    could not be read or parsed.
    """
    from torchleak.formats import FileReport, TextStyle, write_text

    out = out or sys.stdout
    err = err or sys.stderr
    fixed = remaining = unsafe_available = 0
    changed_files = 0
    failed = bool(extra_reports)
    reports: list[FileReport] = list(extra_reports)
    reads_stdin = any(path == "-" for path, _ in targets)
    for path, job in targets:
        name = stdin_name if path == "-" else path
        notebook = name.endswith(".ipynb")
        try:
            if path == "-":
                data = sys.stdin.buffer.read() if stdin is None else stdin.read().encode()
            else:
                data = Path(path).read_bytes()
            if notebook:
                text, encoding = data.decode("utf-8-sig"), "utf-8"
                parsed = extract(text)
                source, cells = parsed.source, parsed.lines
            else:
                source, encoding = _read(data)
                text, cells = source, None
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError, NotebookError) as error:
            reports.append(FileReport(name, error=f"cannot read: {getattr(error, 'strerror', None) or error}"))
            failed = True
            continue
        ignore = job.ignore_for(name)
        outcome = fix_source(source, select=job.select, ignore=ignore, settings=job.settings, unsafe=unsafe)
        new_text = outcome.source
        changed_cells: list[tuple[int, str, str]] = []
        if notebook and outcome.changed:
            try:
                result = fix_notebook(text, outcome.source)
                new_text, changed_cells = result.text, result.changed_cells
                cells = extract(new_text).lines
            except (NotebookFixError, NotebookError, ValueError, KeyError) as error:
                err.write(f"{name}: fixes not applied: {error}\n")
                outcome = fix_source(source, select=job.select, ignore=ignore, settings=job.settings, max_passes=0)
                new_text = text
        problem = outcome.result.syntax_error
        if problem is not None:
            unchanged = replace(outcome.result, syntax_error=replace(problem, message=f"{problem.message} (left unchanged)"))
            reports.append(FileReport(name, unchanged, source_lines=outcome.source.splitlines(), cells=cells))
            failed = True
            if path == "-" and not diff:
                out.write(text)
            continue
        fixed += outcome.fixed
        remaining += len(outcome.remaining)
        unsafe_available += outcome.unsafe_available
        changed_files += new_text != text
        if diff:
            if changed_cells:
                for number, old, new in changed_cells:
                    label = f"{name}:cell {number}"
                    out.writelines(difflib.unified_diff(_LINES.findall(old + "\n"), _LINES.findall(new + "\n"), label, label))
            else:
                out.writelines(difflib.unified_diff(_LINES.findall(text), _LINES.findall(new_text), name, name))
            continue
        if path == "-":
            out.write(new_text)
        elif new_text != text:
            Path(path).write_bytes(new_text.encode(encoding))
        reports.append(FileReport(name, Result(outcome.remaining, skipped=outcome.result.skipped), cells=cells))
    more = f"; {unsafe_available} more fixable with --unsafe-fixes" if unsafe_available else ""
    summary = err if diff or reads_stdin else out
    if diff:
        if not quiet:
            err.write(f"Would fix {_plural(fixed)} in {_plural(changed_files, 'file')} ({remaining} remaining{more}).\n")
        for report in reports:
            if report.error is not None or report.result.syntax_error is not None:
                write_text([report], err, err)
        return 1 if changed_files or failed else 0
    # The findings left: on stdout, unless stdout carries the fixed buffer.
    stream = err if reads_stdin else out
    if writer is None or writer is write_text:
        write_text(reports, stream, err, TextStyle(color=color, summary=False))
    else:
        writer(reports, stream, err)
    if not quiet:
        summary.write(f"Fixed {_plural(fixed)} ({remaining} remaining{more}).\n")
    return 1 if remaining or failed else 0
