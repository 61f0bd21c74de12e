"""How the CLI prints what it found: text, json, sarif and github. Rendering only, no analysis."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Final, Optional, TextIO
from urllib.parse import quote

from torchleak import __version__
from torchleak.docs import harm_label, rule_page_text, rule_url, summary
from torchleak.engine import DEFAULT_SELECT, NOTICE_CODE, SYNTAX_CODE, Result, is_selected
from torchleak.fix import Offer, json_fix, sarif_fixes
from torchleak.rule import Finding
from torchleak.rules import ALL_RULES, RULES_BY_CODE

#: Bumped only when a field is removed, renamed or changes meaning; new fields may appear in any release.
JSON_VERSION: Final = 1
NOTICE_NAME: Final = "not-analysed"
NOTICE_DESCRIPTION: Final = (
    "A file was not analysed (nested too deeply, too large, or not parsable by libcst), and why. "
    "Off unless selected explicitly (--extend-select TLK900)."
)
SYNTAX_NAME: Final = "syntax-error"
SYNTAX_DESCRIPTION: Final = (
    "The file is not valid Python (CPython's parser rejects it), so it was not analysed. Reported "
    "whatever --select says; --ignore TLK999 (or per-file-ignores) silences it. Under flake8, "
    "syntax errors are flake8's E999."
)
SARIF_SCHEMA: Final = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@dataclass
class FileReport:
    """What linting one path gave: the engine's result, or why the file could not be read."""

    path: str
    result: Result = field(default_factory=Result)
    #: The file could not be read or decoded, or is not a notebook.
    error: Optional[str] = None
    #: The linted source's lines, kept only to show a syntax error's line.
    source_lines: list[str] = field(default_factory=list)
    #: For a notebook, the (cell, line in cell) of each line of the linted source.
    cells: Optional[tuple[tuple[int, int], ...]] = None
    #: The fix of each finding that has one, by (line, 0-based column, code); json and sarif offer them.
    fixes: dict[tuple[int, int, str], Offer] = field(default_factory=dict)

    def locate(self, line: int) -> tuple[Optional[int], int]:
        """(cell, line in cell) for a notebook, else (None, line)."""
        if not self.cells:  # a .py file (or a notebook without code, which reports nothing)
            return None, line
        return self.cells[min(max(line, 1), len(self.cells)) - 1]

    def where(self, line: int, column: int) -> str:
        """``path:line:col`` (column 1-based), or ruff's ``path:cell N:line:col`` in a notebook."""
        cell, line = self.locate(line)
        return f"{self.path}:{'' if cell is None else f'cell {cell}:'}{line}:{column}"

    @property
    def failed(self) -> bool:
        return bool(self.result.findings or self.error or self.result.syntax_error)


def rule_name(code: str) -> str:
    if code == SYNTAX_CODE:
        return SYNTAX_NAME
    return RULES_BY_CODE[code].name if code in RULES_BY_CODE else NOTICE_NAME


# --- text: flake8's `path:line:col: CODE message`; problems with files on stderr ---------------


@dataclass(frozen=True)
class TextStyle:
    """How the text format looks: ruff's ``[*]`` marker on each finding a fix can address,
    colour, the source line under each finding, the closing summary."""

    color: bool = False
    show_source: bool = False
    #: --unsafe-fixes: count the unsafe fixes as available (marker and summary).
    unsafe_fixes: bool = False
    summary: bool = True


FIXABLE: Final = "[*]"
_BOLD, _RED, _CYAN, _RESET = "\x1b[1m", "\x1b[1;31m", "\x1b[36m", "\x1b[0m"


def _paint(text: str, code: str, style: TextStyle) -> str:
    return f"{code}{text}{_RESET}" if style.color else text


def _offer(report: FileReport, finding: Finding) -> Optional[Offer]:
    return report.fixes.get((finding.line, finding.column, finding.code))


def _source_line(report: FileReport, line: int, column: int) -> str:
    """flake8's --show-source: the line, and a caret under the column (0-based)."""
    if not 0 < line <= len(report.source_lines):
        return ""
    text = report.source_lines[line - 1]
    indent = "".join(char if char == "\t" else " " for char in text[:column])
    return f"{text}\n{indent}^\n"


def _line(report: FileReport, line: int, column: int, code: str, message: str, marker: bool, style: TextStyle) -> str:
    where = report.where(line, column + 1)
    path, _, rest = where.partition(":")
    mark = f"{_paint(FIXABLE, _CYAN, style)} " if marker else ""
    text = f"{_paint(path, _BOLD, style)}:{rest}: {_paint(code, _RED, style)} {mark}{message}\n"
    if style.show_source:
        text += _source_line(report, line, column)
    return text


def _fixable(offer: Optional[Offer], style: TextStyle) -> bool:
    return offer is not None and (offer.safety == "safe" or style.unsafe_fixes)


def write_text(reports: Sequence[FileReport], out: TextIO, err: TextIO, style: TextStyle = TextStyle(summary=False)) -> None:
    """Findings and syntax errors (TLK999) on ``out``; files that could not be read on ``err``."""
    for report in reports:
        if report.error is not None:
            err.write(f"{report.path}: {report.error}\n")
        elif report.result.syntax_error is not None:
            error = report.result.syntax_error
            line, column = (error.line, error.column) if error.point else (1, 0)
            out.write(_line(report, line, column, SYNTAX_CODE, f"syntax error: {error.message}", False, style))
        for finding in report.result.findings:
            out.write(_line(report, finding.line, finding.column, finding.code, finding.message, _fixable(_offer(report, finding), style), style))
    if style.summary:
        text = summary_line(reports, style)
        if text:
            out.write(text + "\n")


def _plural(count: int, word: str = "finding") -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(reports: Sequence[FileReport], style: TextStyle = TextStyle()) -> str:
    """ruff's closing line: ``Found 19 findings (3 fixable with --fix, 16 more with --unsafe-fixes).``
    Syntax errors count as findings; nothing when there is none."""
    total = sum(len(report.result.findings) + (report.result.syntax_error is not None) for report in reports)
    if not total:
        return ""
    offers = [_offer(report, finding) for report in reports for finding in report.result.findings]
    safe = sum(1 for offer in offers if offer is not None and offer.safety == "safe")
    unsafe = sum(1 for offer in offers if offer is not None and offer.safety != "safe")
    if style.unsafe_fixes and safe + unsafe:
        fixable = f" ({safe + unsafe} fixable with --fix --unsafe-fixes)"
    elif safe and unsafe:
        fixable = f" ({safe} fixable with --fix, {unsafe} more with --unsafe-fixes)"
    elif safe:
        fixable = f" ({safe} fixable with --fix)"
    elif unsafe:
        fixable = f" ({unsafe} fixable with --fix --unsafe-fixes)"
    else:
        fixable = ""
    return f"Found {_plural(total)}{fixable}."


def write_notes(reports: Sequence[FileReport], err: TextIO) -> None:
    """A one-line note for each file that was not analysed, unless TLK900 reports it already."""
    for report in reports:
        skipped = report.result.skipped
        if skipped is not None and not any(finding.code == NOTICE_CODE for finding in report.result.findings):
            err.write(f"{report.path}: note: not analysed: {skipped} (select {NOTICE_CODE} to report it as a finding)\n")


def write_statistics(reports: Sequence[FileReport], out: TextIO, style: TextStyle = TextStyle(), as_json: bool = False) -> None:
    """ruff's --statistics: how many findings of each code, most frequent first."""
    counts: dict[str, list[int]] = {}
    for report in reports:
        if report.result.syntax_error is not None:
            counts.setdefault(SYNTAX_CODE, [0, 0])[0] += 1
        for finding in report.result.findings:
            entry = counts.setdefault(finding.code, [0, 0])
            entry[0] += 1
            entry[1] += _fixable(_offer(report, finding), style)
    rows = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    if as_json:
        json.dump([{"code": code, "name": rule_name(code), "count": count, "fixable": fixable} for code, (count, fixable) in rows], out, indent=2)
        out.write("\n")
        return
    width = max((len(str(count)) for _, (count, _) in rows), default=1)
    for code, (count, fixable) in rows:
        marker = _paint(FIXABLE, _CYAN, style) + " " if fixable else "    "
        out.write(f"{count:>{width}}\t{_paint(code, _RED, style)}\t{marker}{rule_name(code)}\n")
    if style.summary:
        text = summary_line(reports, style)
        if text:
            out.write(text + "\n")


# --- json: the documented, versioned document (README "JSON output") -------------------------


def json_finding(report: FileReport, finding: Finding) -> dict[str, object]:
    cell, line = report.locate(finding.line)
    return {
        "path": report.path,
        "cell": cell,
        "line": line,
        "column": finding.column + 1,
        "code": finding.code,
        "name": rule_name(finding.code),
        "message": finding.message,
        "url": rule_url(finding.code) or "",
        # A notebook's fix edits would be positions in the joined cells, not in the file.
        "fix": json_fix(offer) if report.cells is None and (offer := _offer(report, finding)) else None,
    }


def problem(report: FileReport) -> Optional[tuple[str, Optional[tuple[int, int]]]]:
    """Why the file could not be linted, and the (line, 0-based column) it points at, if any."""
    if report.error is not None:
        return report.error, None
    error = report.result.syntax_error
    if error is None:
        return None
    return f"syntax error: {error.message}", (error.line, error.column) if error.point else None


def _json_error(report: FileReport) -> Optional[dict[str, object]]:
    found = problem(report)
    if found is None:
        return None
    message, point = found
    cell, line, column = None, None, None
    if point is not None:
        (cell, line), column = report.locate(point[0]), point[1] + 1
    code = SYNTAX_CODE if report.error is None else None
    return {"path": report.path, "cell": cell, "line": line, "column": column, "code": code, "message": message}


def json_document(reports: Sequence[FileReport]) -> dict[str, object]:
    return {
        "version": JSON_VERSION,
        "tool": {"name": "torchleak", "version": __version__},
        "findings": [json_finding(report, finding) for report in reports for finding in report.result.findings],
        "errors": [error for error in map(_json_error, reports) if error is not None],
        "not_analysed": [
            {"path": report.path, "reason": report.result.skipped}
            for report in reports
            if report.result.skipped is not None
        ],
    }


def write_json(reports: Sequence[FileReport], out: TextIO, err: TextIO) -> None:
    json.dump(json_document(reports), out, indent=2)
    out.write("\n")


# --- sarif: SARIF 2.1.0, for code-scanning uploads ---------------------------------------------


def _sarif_rules() -> list[dict[str, object]]:
    rules: list[dict[str, object]] = []
    for rule in ALL_RULES:
        doc = inspect.cleandoc(rule.__doc__ or "")
        page = rule_page_text(rule.code)  # the full page shipped with the package
        entry: dict[str, object] = {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": summary(rule)},
            "fullDescription": {"text": doc, "markdown": doc},
            "help": {"text": page, "markdown": page},
            "defaultConfiguration": {"level": "warning", "enabled": is_selected(rule.code, DEFAULT_SELECT)},
            "properties": {"tags": ["pytorch", "autograd", "memory", harm_label(rule.harm)]},
        }
        url = rule_url(rule.code)
        if url is not None:
            entry["helpUri"] = url
        rules.append(entry)
    for code, name, short, description, level, enabled in (
        (NOTICE_CODE, NOTICE_NAME, "A file was not analysed.", NOTICE_DESCRIPTION, "note", False),
        (SYNTAX_CODE, SYNTAX_NAME, "A file is not valid Python.", SYNTAX_DESCRIPTION, "error", True),
    ):
        rules.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": short},
                "fullDescription": {"text": description},
                "help": {"text": description},
                "defaultConfiguration": {"level": level, "enabled": enabled},
            }
        )
    return rules


def _artifact(path: str) -> dict[str, str]:
    """A relative path stays relative to %SRCROOT% (the working directory); others become file URIs."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(path).as_posix()), "uriBaseId": "%SRCROOT%"}


def _file_location(report: FileReport) -> dict[str, object]:
    return {"physicalLocation": {"artifactLocation": _artifact(report.path)}}


def _sarif_location(report: FileReport, line: int, column: int) -> tuple[dict[str, object], str]:
    """A physical location, and the text to put before the message.

    A notebook's cell lines are not lines of its .ipynb file, so a notebook finding points at
    the file and names the cell in the message ("cell 3, line 2: ...") and in its properties.
    """
    cell, cell_line = report.locate(line)
    physical: dict[str, object] = {"artifactLocation": _artifact(report.path)}
    if cell is None:
        physical["region"] = {"startLine": line, "startColumn": column + 1}
        return {"physicalLocation": physical}, ""
    location = {"physicalLocation": physical, "properties": {"cell": cell, "line": cell_line, "column": column + 1}}
    return location, f"cell {cell}, line {cell_line}: "


def sarif_document(reports: Sequence[FileReport]) -> dict[str, object]:
    rules = _sarif_rules()
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    results = []
    for report in reports:
        for finding in report.result.findings:
            location, prefix = _sarif_location(report, finding.line, finding.column)
            result: dict[str, object] = {
                "ruleId": finding.code,
                "ruleIndex": index[finding.code],
                "level": "note" if finding.code == NOTICE_CODE else "warning",
                "message": {"text": prefix + finding.message},
                "locations": [location],
            }
            offer = _offer(report, finding)
            if offer is not None and report.cells is None:
                result["fixes"] = sarif_fixes(offer, _artifact(report.path))
            results.append(result)
    notifications = []
    for report in reports:
        found = problem(report)
        if found is not None:
            message, point = found
            location, prefix = _sarif_location(report, *point) if point else (_file_location(report), "")
            notifications.append({"level": "error", "message": {"text": prefix + message}, "locations": [location]})
        if report.result.skipped is not None:
            notifications.append(
                {
                    "level": "note",
                    "message": {"text": f"not analysed: {report.result.skipped}"},
                    "locations": [_file_location(report)],
                }
            )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "torchleak",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
                # libcst columns count code points, not SARIF's default UTF-16 code units.
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }


def write_sarif(reports: Sequence[FileReport], out: TextIO, err: TextIO) -> None:
    json.dump(sarif_document(reports), out, indent=2)
    out.write("\n")


# --- github: workflow commands, shown as annotations on the pull request ------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(kind: str, report: FileReport, line: int, column: int, title: str, message: str) -> str:
    cell, cell_line = report.locate(line)
    properties = [f"file={_escape_property(report.path)}"]
    if cell is None:
        properties += [f"line={line}", f"col={column + 1}"]
    else:  # the notebook's cell lines are not lines of the .ipynb file: annotate the file
        message = f"cell {cell}, line {cell_line}: {message}"
    properties.append(f"title={_escape_property(title)}")
    return f"::{kind} {','.join(properties)}::{_escape_data(message)}\n"


def write_github(reports: Sequence[FileReport], out: TextIO, err: TextIO) -> None:
    for report in reports:
        found = problem(report)
        if found is not None:
            message, point = found
            if point is None:
                out.write(f"::error file={_escape_property(report.path)},title=torchleak::{_escape_data(message)}\n")
            else:
                out.write(_annotation("error", report, *point, "torchleak", message))
        for finding in report.result.findings:
            kind = "notice" if finding.code == NOTICE_CODE else "warning"
            out.write(_annotation(kind, report, finding.line, finding.column, finding.code, finding.message))


Writer = Callable[[Sequence[FileReport], TextIO, TextIO], None]
FORMATS: Final[dict[str, Writer]] = {
    "text": write_text,
    "json": write_json,
    "sarif": write_sarif,
    "github": write_github,
}
