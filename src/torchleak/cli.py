"""The command-line adapter: find files, read them, print what the engine found."""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import os
import sys
import tokenize
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, TextIO

from torchleak import __version__
from torchleak.analysis.flow import Settings
from torchleak.engine import DEFAULT_SELECT, NOTICE_CODE, Result, check_source
from torchleak.rules import ALL_RULES, RULES_BY_CODE

DEFAULT_EXCLUDE = (".git", "__pycache__", ".tox", ".nox", ".eggs", "*.egg", ".venv", "venv", ".svn", ".hg", ".bzr", "CVS")
#: Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 16


@dataclass
class FileReport:
    path: str
    result: Result = field(default_factory=Result)
    #: The file could not be read or decoded.
    error: Optional[str] = None
    source_lines: list[str] = field(default_factory=list)


def _split_codes(value: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in value.split(",") if code.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchleak",
        description="Find autograd memory leaks in PyTorch training code.",
        epilog="Exit status: 0 no findings, 1 findings or files that could not be read or parsed, 2 usage error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (recursive); - reads stdin")
    parser.add_argument("--select", type=_split_codes, default=DEFAULT_SELECT, help="codes or prefixes to report (default: TLK1,TLK2,TLK3)")
    parser.add_argument("--ignore", type=_split_codes, default=(), help="codes or prefixes to leave out")
    parser.add_argument("--extend-select", type=_split_codes, default=(), help="codes to add to --select, e.g. TLK900")
    parser.add_argument("--exclude", type=lambda v: tuple(p.strip() for p in v.split(",") if p.strip()), default=(), help="extra glob patterns of paths to skip")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPU count)")
    parser.add_argument("--stdin-display-name", default="stdin", help="the name to report for input read from stdin")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--model-names", type=_split_codes_raw, default=(), help="extra callables that run a model")
    parser.add_argument("--loss-names", type=_split_codes_raw, default=(), help="extra callables that compute a loss")
    parser.add_argument("--per-batch-methods", type=_split_codes_raw, default=(), help="extra methods called once per batch")
    parser.add_argument("--version", action="version", version=f"torchleak {__version__}")
    return parser


def _split_codes_raw(value: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in value.split(",") if name.strip())


def _excluded(path: Path, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(part, pattern) for part in path.parts for pattern in patterns) or any(
        fnmatch.fnmatch(str(path), pattern) for pattern in patterns
    )


def discover(paths: Sequence[str], exclude: Sequence[str]) -> Iterator[str]:
    """Python files under ``paths`` in a stable order; files named explicitly are always linted."""
    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            yield raw
            continue
        found: list[str] = []
        for root, directories, files in os.walk(path):
            directories[:] = sorted(d for d in directories if not _excluded(Path(root, d), exclude))
            found.extend(
                os.path.join(root, name)
                for name in files
                if name.endswith(".py") and not _excluded(Path(root, name), exclude)
            )
        yield from sorted(found)


def decode(data: bytes) -> str:
    """Decode like CPython: a BOM or a PEP 263 coding line, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


@dataclass(frozen=True)
class _Job:
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    settings: Settings


def lint_path(path: str, job: _Job, stdin_data: Optional[bytes] = None) -> FileReport:
    try:
        data = stdin_data if stdin_data is not None else Path(path).read_bytes()
    except OSError as error:
        return FileReport(path, error=f"cannot read: {error.strerror or error}")
    try:
        source = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return FileReport(path, error=f"cannot decode: {error}")
    result = check_source(source, select=job.select, ignore=job.ignore, settings=job.settings, apply_noqa=True)
    return FileReport(path, result, source_lines=source.splitlines() if result.syntax_error else [])


def _lint_in_worker(arguments: tuple[str, _Job]) -> FileReport:
    return lint_path(*arguments)


def lint_paths(paths: Sequence[str], job: _Job, jobs: int, stdin_name: str, progress: Optional[TextIO]) -> Iterator[FileReport]:
    files = list(paths)
    if "-" in files:
        data = sys.stdin.buffer.read()
        files.remove("-")
        yield _renamed(lint_path(stdin_name, job, stdin_data=data), stdin_name)
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            # map keeps the input order, so the output is the same for any --jobs.
            reports = pool.map(_lint_in_worker, [(path, job) for path in files], chunksize=8)
            yield from _with_progress(reports, len(files), progress)
    else:
        yield from _with_progress((lint_path(path, job) for path in files), len(files), progress)


def _renamed(report: FileReport, name: str) -> FileReport:
    report.path = name
    return report


def _with_progress(reports: Iterator[FileReport], total: int, stream: Optional[TextIO]) -> Iterator[FileReport]:
    for done, report in enumerate(reports, start=1):
        if stream is not None and (done % 25 == 0 or done == total):
            stream.write(f"\rtorchleak: {done}/{total} files")
            stream.flush()
        yield report
    if stream is not None and total:
        stream.write("\r" + " " * 40 + "\r")
        stream.flush()


def _progress_stream(file_count: int, output_format: str) -> Optional[TextIO]:
    """A progress line on stderr only for an interactive terminal, never in CI or pipes."""
    if file_count < 200 or os.environ.get("CI") or not sys.stderr.isatty() or not sys.stdout.isatty():
        return None
    return sys.stderr


def _print_text(reports: list[FileReport], out: TextIO, err: TextIO) -> None:
    for report in reports:
        if report.error is not None:
            err.write(f"{report.path}: {report.error}\n")
        elif report.result.syntax_error is not None:
            error = report.result.syntax_error
            line, column = error.line, error.column
            err.write(f"{report.path}:{line}:{column + 1}: syntax error: {error.message}\n")
            if error.point and 0 < line <= len(report.source_lines):
                text = report.source_lines[line - 1]
                err.write(f"{text}\n{' ' * min(column, len(text))}^\n")
        for finding in report.result.findings:
            out.write(f"{report.path}:{finding.line}:{finding.column + 1}: {finding.code} {finding.message}\n")


def _json_document(reports: list[FileReport]) -> dict[str, object]:
    return {
        "version": 1,
        "tool": {"name": "torchleak", "version": __version__},
        "findings": [
            {
                "path": report.path,
                "line": finding.line,
                "column": finding.column + 1,
                "code": finding.code,
                "name": RULES_BY_CODE[finding.code].name if finding.code in RULES_BY_CODE else "not-analysed",
                "message": finding.message,
            }
            for report in reports
            for finding in report.result.findings
        ],
        "errors": [
            {"path": report.path, "message": report.error}
            for report in reports
            if report.error is not None
        ]
        + [
            {
                "path": report.path,
                "message": f"syntax error: {report.result.syntax_error.message}",
                "line": report.result.syntax_error.line,
                "column": report.result.syntax_error.column + 1,
            }
            for report in reports
            if report.result.syntax_error is not None
        ],
        "not_analysed": [
            {"path": report.path, "reason": report.result.skipped}
            for report in reports
            if report.result.skipped is not None
        ],
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if options.list_rules:
        for rule in ALL_RULES:
            print(f"{rule.code}  {rule.name:<28} {rule.harm}")
        print(f"{NOTICE_CODE}  {'not-analysed':<28} notice (off unless selected)")
        return 0
    if options.explain:
        from torchleak.docs import render

        explained = RULES_BY_CODE.get(options.explain.strip().upper())
        if explained is None:
            parser.print_usage(sys.stderr)
            sys.stderr.write(f"torchleak: error: unknown rule code {options.explain!r}; see --list-rules\n")
            return 2
        print(render(explained))
        return 0
    if not options.paths:
        parser.print_usage(sys.stderr)
        sys.stderr.write("torchleak: error: give at least one PATH (or - for stdin)\n")
        return 2
    if options.jobs < 1:
        sys.stderr.write("torchleak: error: --jobs must be at least 1\n")
        return 2
    job = _Job(
        select=tuple(options.select) + tuple(options.extend_select),
        ignore=tuple(options.ignore),
        settings=Settings(
            model_names=frozenset(options.model_names),
            loss_names=frozenset(options.loss_names),
            per_batch_methods=frozenset(options.per_batch_methods),
        ),
    )
    files = list(discover(options.paths, DEFAULT_EXCLUDE + tuple(options.exclude)))
    reports = list(lint_paths(files, job, options.jobs, options.stdin_display_name, _progress_stream(len(files), options.format)))
    if options.format == "json":
        json.dump(_json_document(reports), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text(reports, sys.stdout, sys.stderr)
    failed = any(r.result.findings or r.error or r.result.syntax_error for r in reports)
    return 0 if options.exit_zero or not failed else 1
