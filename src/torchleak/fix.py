"""``torchleak --fix``: lint, apply the findings' fixes that do not overlap, lint again.

The engine offers each finding's fix as text edits, built from the same parse and analysis as
the finding (``check_source(..., fixes=True)``); nothing is parsed or analysed a second time
to fix. A pass applies every fix whose replaced text overlaps no other's (insertions next to a
statement compose with replacements inside it), then the file is linted again, since a fix
can make or hide another finding; at most ``MAX_PASSES`` passes. A file that CPython cannot
parse, or that the engine did not analyse, is never changed, and a pass whose output is less
valid Python than its input is dropped (a bug in a fix must not break a file).
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
from typing import Any, Final, Optional, TextIO

from torchleak.analysis.settings import Settings
from torchleak.engine import DEFAULT_SELECT, Result, check_source
from torchleak.notebooks import NotebookError, extract
from torchleak.rule import Finding, Offer, TextEdit

#: Passes over one file; each applies every non-overlapping fix, so two or three suffice in practice.
MAX_PASSES: Final = 8

FindingKey = tuple[int, int, str]

__all__ = ["Offer", "TextEdit", "FixOutcome", "fix_source", "offered_fixes", "apply_text_edits", "text_edit"]


@dataclass
class FixOutcome:
    """What fixing one source did."""

    original: str
    source: str
    #: The code and the fix of every finding fixed, in the order applied.
    applied: list[tuple[str, Offer]] = field(default_factory=list)
    #: The findings left in ``source`` (each with its fix, if it has one).
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


# --------------------------------------------------------------------------- choosing and applying


def _span(edit: TextEdit) -> tuple[tuple[int, int], tuple[int, int]]:
    return (edit.start_line, edit.start_column), (edit.end_line, edit.end_column)


def _overlaps(first: TextEdit, second: TextEdit) -> bool:
    """Two replacements overlap when their ranges share text (or replace the same empty spot
    with different text); insertions never clash with each other."""
    (a0, a1), (b0, b1) = _span(first), _span(second)
    if a0 == a1 or b0 == b1:
        return a0 < b1 and b0 < a1  # an insertion strictly inside a replaced range
    return a0 < b1 and b0 < a1


def choose(findings: Sequence[Finding]) -> list[Finding]:
    """The findings, in order, whose fixes overlap no earlier chosen one's (the rest wait for the
    next pass)."""
    taken: list[TextEdit] = []
    chosen = []
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.code)):
        assert finding.fix is not None
        edits = [edit for edit in finding.fix.edits if edit not in taken]
        if any(_overlaps(mine, other) for mine in edits for other in taken):
            continue
        if any(_overlaps(a, b) for i, a in enumerate(edits) for b in edits[i + 1 :]):
            continue
        taken.extend(edits)
        chosen.append(finding)
    return chosen


def apply_text_edits(source: str, edits: Iterable[TextEdit]) -> str:
    """``source`` with ``edits`` applied (identical edits once; insertions at one spot in order)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column - 1

    unique = list(dict.fromkeys(edits))
    ordered = sorted(enumerate(unique), key=lambda pair: (offset(pair[1].start_line, pair[1].start_column), pair[0]), reverse=True)
    result = source
    for _, edit in ordered:
        start, end = offset(edit.start_line, edit.start_column), offset(edit.end_line, edit.end_column)
        result = result[:start] + edit.content + result[end:]
    return result


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


def _apply_pass(source: str, chosen: list[Finding]) -> tuple[str, list[Finding]]:
    """Apply the chosen fixes together; if the result is less valid Python than the original
    (does not parse, or no longer compiles), only the fixes that keep it valid on their own."""
    required = max(_validity(source), 1)

    def edits(findings: Iterable[Finding]) -> list[TextEdit]:
        return [edit for finding in findings if finding.fix is not None for edit in finding.fix.edits]

    fixed = apply_text_edits(source, edits(chosen))
    if _validity(fixed) >= required:
        return fixed, chosen
    kept = [finding for finding in chosen if _validity(apply_text_edits(source, edits([finding]))) >= required]
    if not kept or len(kept) == len(chosen):
        return source, []
    return _apply_pass(source, kept)


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
        return check_source(text, select=select, ignore=ignore, settings=settings, apply_noqa=True, fixes=True)

    result = lint(source)
    outcome = FixOutcome(original=source, source=source, result=result, remaining=list(result.findings))
    if result.syntax_error is not None or result.skipped is not None:
        return outcome
    # (code, line) of findings whose fix left them in place: that fix changed the code without
    # removing the leak, so it is undone and never offered again (no ``.detach().detach()``)
    ineffective: set[tuple[str, int]] = set()
    for _ in range(max_passes):
        fixable = [finding for finding in result.findings if finding.fix is not None and (finding.code, finding.line) not in ineffective]
        allowed = [finding for finding in fixable if unsafe or finding.fix is not None and finding.fix.safety == "safe"]
        outcome.unsafe_available = len(fixable) - len(allowed)
        if not allowed:
            break
        new_source, applied = _apply_pass(source, choose(allowed))
        if not applied or new_source == source:
            break
        new_result = lint(new_source)
        if new_result.syntax_error is not None or new_result.skipped is not None:
            break  # never leave a file worse off than it was
        remaining = {(finding.code, finding.line) for finding in new_result.findings}
        stuck = {(finding.code, finding.line) for finding in applied} & remaining
        if stuck:
            ineffective |= stuck
            kept = [finding for finding in allowed if (finding.code, finding.line) not in stuck]
            new_source, applied = _apply_pass(source, choose(kept)) if kept else (source, [])
            if not applied or new_source == source:
                break
            new_result = lint(new_source)
            if new_result.syntax_error is not None or new_result.skipped is not None:
                break
        source, result = new_source, new_result
        outcome.applied.extend((finding.code, finding.fix) for finding in applied if finding.fix is not None)
        outcome.unsafe_available = 0
    outcome.source, outcome.result, outcome.remaining = source, result, list(result.findings)
    return outcome


# --------------------------------------------------------------------------- offering fixes as text


def text_edit(old: str, new: str) -> Optional[TextEdit]:
    """The one region that turns ``old`` into ``new`` (for tests and tools comparing two texts);
    a change spanning lines is widened to whole lines."""
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


def offered_fixes(findings: Sequence[Finding]) -> dict[FindingKey, Offer]:
    """The fix each finding carries (lint with ``check_source(..., fixes=True)``), keyed by
    (line, 0-based column, code)."""
    return {(finding.line, finding.column, finding.code): finding.fix for finding in findings if finding.fix is not None}


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
    machine_readable: bool = False,
) -> int:
    """Fix each (path, job) in place (``-``: stdin to stdout; notebooks: their code cells), or
    with ``diff`` print what would change. ``job`` has ``select``, ``ignore_for(path)`` and
    ``settings``.

    Prints the findings left (each with the fix still available) with ``writer`` (the text
    format by default) and a summary; with ``machine_readable`` (json, sarif, github) the summary
    goes to ``err`` so that ``out`` stays one document. ``diff`` prints the diff whatever the
    writer, as ruff does. Exit
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
        left = Result(outcome.remaining, skipped=outcome.result.skipped)
        reports.append(FileReport(name, left, source_lines=outcome.source.splitlines(), cells=cells, fixes=offered_fixes(outcome.remaining)))
    more = f"; {unsafe_available} more fixable with --unsafe-fixes" if unsafe_available else ""
    summary = err if diff or reads_stdin or machine_readable else out
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
