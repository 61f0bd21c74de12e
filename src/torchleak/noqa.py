"""``# noqa`` for the command line, exactly as flake8 applies it to the plugin's findings.

flake8's rules (``flake8.defaults``, ``flake8.processor``, ``flake8.violation``): the comment is
found with flake8's own regular expression; a finding on any line of a statement that spans
several lines (a multi-line call, string or bracket) is silenced by a ``# noqa`` on any of
those lines; ``# noqa: TLK1`` silences codes starting with a listed code; a line
starting with ``# flake8: noqa`` silences the whole file.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Iterator
from typing import TypeVar

from flake8.defaults import NOQA_FILE, NOQA_INLINE_REGEXP

from torchleak.rule import Finding

F = TypeVar("F", bound=Finding)


def _line_mapping(source: str, lines: list[str]) -> dict[int, str]:
    """Line number -> the text searched for ``# noqa`` (all the lines of its logical line)."""
    mapping: dict[int, str] = {}
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, token.start[0]), max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1 : last])
                mapping.update(dict.fromkeys(range(first, last + 1), joined))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return mapping


def without_noqa(findings: Iterable[F], source: str) -> Iterator[F]:
    """The findings that no ``# noqa`` comment silences."""
    findings = list(findings)
    if not findings:
        return
    if NOQA_INLINE_REGEXP.search(source) is None and NOQA_FILE.search(source) is None:
        # no comment anywhere (the lines searched are slices of the source): no tokenizing
        yield from findings
        return
    lines = source.splitlines(keepends=True)
    if any(NOQA_FILE.match(line) for line in lines):
        return
    mapping = _line_mapping(source, lines)
    for finding in findings:
        line = mapping.get(finding.line)
        if line is None:  # flake8 falls back to the physical line
            line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        match = NOQA_INLINE_REGEXP.search(line)
        if match is None:
            yield finding
            continue
        codes = match.groupdict()["codes"]
        if codes is None:
            continue
        listed = {code.strip() for code in codes.replace(",", " ").split() if code.strip()}
        if not (finding.code in listed or finding.code.startswith(tuple(listed))):
            yield finding
