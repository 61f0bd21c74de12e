"""The command-line adapter: find files, read them, hand them to the engine, print the results."""

from __future__ import annotations

import argparse
import fnmatch
import io
import os
import sys
import tokenize
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, TextIO, TypeVar

from torchleak import __version__
from torchleak.analysis.settings import Settings
from torchleak.config import Config, ConfigError, PerFileIgnores, find, load, parse_codes, parse_per_file_ignores
from torchleak.engine import DEFAULT_SELECT, NOTICE_CODE, check_source
from torchleak.fix import offered_fixes
from torchleak.fix import run as run_fix
from torchleak.formats import FORMATS, FileReport, rule_name
from torchleak.notebooks import NotebookError, extract, is_notebook
from torchleak.rules import ALL_RULES, RULES_BY_CODE

DEFAULT_EXCLUDE = (".git", "__pycache__", ".tox", ".nox", ".eggs", "*.egg", ".venv", "venv", ".svn", ".hg", ".bzr", "CVS", ".ipynb_checkpoints")
#: Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 16
EXIT_STATUS = "Exit status: 0 no findings, 1 findings or files that could not be read or parsed, 2 usage or configuration error."

T = TypeVar("T")


def _comma_list(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


def _codes(value: str) -> tuple[str, ...]:
    try:
        return parse_codes(_comma_list(value), "command line")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _per_file_ignores(value: str) -> PerFileIgnores:
    """flake8's syntax: ``PATTERN:CODES`` pairs separated by spaces or new lines."""
    pairs = []
    for item in value.split():
        pattern, colon, codes = item.rpartition(":")
        if not colon or not pattern:
            raise argparse.ArgumentTypeError(f"expected PATTERN:CODES, got {item!r}")
        pairs.append((pattern, _comma_list(codes)))
    try:
        return parse_per_file_ignores(pairs, "--per-file-ignores")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchleak",
        description="Find autograd memory leaks in PyTorch training code.",
        epilog="Settings come from [tool.torchleak] in the nearest pyproject.toml above the paths; "
        "a flag given here replaces the key of the same name. " + EXIT_STATUS,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (recursive: *.py, *.ipynb); - reads stdin")
    # Options that [tool.torchleak] can also set default to None: "not given here".
    parser.add_argument("--select", type=_codes, help="codes or prefixes to report (default: TLK1,TLK2,TLK3)")
    parser.add_argument("--ignore", type=_codes, help="codes or prefixes to leave out")
    parser.add_argument("--extend-select", type=_codes, help="codes to add to --select, e.g. TLK900")
    parser.add_argument("--per-file-ignores", type=_per_file_ignores, metavar="PATTERN:CODES", help="codes to leave out in files matching a glob; pairs separated by spaces")
    parser.add_argument("--exclude", type=_comma_list, metavar="GLOBS", help="glob patterns of paths to skip, besides .git, .venv and the like")
    parser.add_argument("--force-exclude", action="store_true", help="apply exclusions to files named on the command line too (as pre-commit does)")
    parser.add_argument("--model-names", type=_comma_list, help="extra callables that run a model")
    parser.add_argument("--loss-names", type=_comma_list, help="extra callables that compute a loss")
    parser.add_argument("--per-batch-methods", type=_comma_list, help="extra methods called once per batch")
    parser.add_argument("--config", metavar="PYPROJECT", help="read [tool.torchleak] from this file instead of searching")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes in place; report how many were fixed and what is left")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them")
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply fixes that may change behaviour")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPU count)")
    parser.add_argument("--stdin-display-name", default="stdin", help="the name to report for input read from stdin")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--version", action="version", version=f"torchleak {__version__}")
    return parser


def _path_forms(path: str, root: str) -> tuple[str, ...]:
    """What a glob is matched against: the path as given, relative to the config's directory, and its name."""
    relative = os.path.relpath(os.path.abspath(path), root)
    return Path(path).as_posix(), Path(relative).as_posix(), os.path.basename(path)


def _matches(path: str, pattern: str, root: str) -> bool:
    return any(fnmatch.fnmatch(form, pattern) for form in _path_forms(path, root))


def _excluded(path: str, patterns: Sequence[str], root: str) -> bool:
    parts = Path(path).parts
    return any(fnmatch.fnmatch(part, pattern) for part in parts for pattern in patterns) or any(
        _matches(path, pattern, root) for pattern in patterns
    )


def discover(paths: Sequence[str], exclude: Sequence[str], root: str = ".", force_exclude: bool = False) -> Iterator[str]:
    """Python files and notebooks under ``paths`` in a stable order.

    Files named explicitly are always linted, unless ``force_exclude`` (pre-commit names every file).
    """
    for raw in paths:
        if raw == "-" or not os.path.isdir(raw):
            if raw == "-" or not force_exclude or not _excluded(raw, exclude, root):
                yield raw
            continue
        found: list[str] = []
        for directory, directories, files in os.walk(raw):
            directories[:] = sorted(d for d in directories if not _excluded(os.path.join(directory, d), exclude, root))
            found.extend(
                os.path.join(directory, name)
                for name in files
                if name.endswith((".py", ".ipynb")) and not _excluded(os.path.join(directory, name), exclude, root)
            )
        yield from sorted(found)


def decode(data: bytes) -> str:
    """Decode like CPython: a BOM or a PEP 263 coding line, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs to lint one path (picklable)."""

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    settings: Settings
    per_file_ignores: PerFileIgnores = ()
    root: str = "."
    #: Work out each finding's fix as text edits (for the json and sarif formats).
    offer_fixes: bool = False

    def ignore_for(self, path: str) -> tuple[str, ...]:
        extra = [code for pattern, codes in self.per_file_ignores if _matches(path, pattern, self.root) for code in codes]
        return self.ignore + tuple(extra)


def _given(value: Optional[T], configured: Optional[T], default: T) -> T:
    """A command-line value replaces the configured one, which replaces the default."""
    return value if value is not None else configured if configured is not None else default


def configure(options: argparse.Namespace) -> tuple[_Job, tuple[str, ...]]:
    """The job and the exclusions for this run, from the flags and [tool.torchleak]; raises ConfigError."""
    if options.isolated:
        config = Config()
    elif options.config is not None:
        config = load(Path(options.config))
    else:
        named = [options.stdin_display_name if path == "-" and options.stdin_display_name != "stdin" else path for path in options.paths]
        config = load(find(named))
    job = _Job(
        select=_given(options.select, config.select, DEFAULT_SELECT) + _given(options.extend_select, config.extend_select, ()),
        ignore=_given(options.ignore, config.ignore, ()),
        settings=Settings(
            model_names=frozenset(_given(options.model_names, config.model_names, ())),
            loss_names=frozenset(_given(options.loss_names, config.loss_names, ())),
            per_batch_methods=frozenset(_given(options.per_batch_methods, config.per_batch_methods, ())),
        ),
        per_file_ignores=_given(options.per_file_ignores, config.per_file_ignores, ()),
        root=str(config.root),
    )
    return job, DEFAULT_EXCLUDE + _given(options.exclude, config.exclude, ())


def lint_path(path: str, job: _Job, stdin_data: Optional[bytes] = None) -> FileReport:
    """Lint one file (or, with ``stdin_data``, the input named ``path``); never raises."""
    try:
        data = stdin_data if stdin_data is not None else Path(path).read_bytes()
    except OSError as error:
        return FileReport(path, error=f"cannot read: {error.strerror or error}")
    cells = None
    try:
        if is_notebook(path):
            notebook = extract(data.decode("utf-8-sig"))
            source, cells = notebook.source, notebook.lines
        else:
            source = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return FileReport(path, error=f"cannot decode: {error}")
    except NotebookError as error:
        return FileReport(path, error=f"cannot read notebook: {error}")
    result = check_source(source, select=job.select, ignore=job.ignore_for(path), settings=job.settings, apply_noqa=True)
    fixes = {}
    if job.offer_fixes and cells is None:  # a notebook's lines are not its file's lines
        fixes = offered_fixes(source, result.findings, select=job.select, ignore=job.ignore_for(path), settings=job.settings)
    return FileReport(path, result, source_lines=source.splitlines() if result.syntax_error else [], cells=cells, fixes=fixes)


def _lint_in_worker(arguments: tuple[str, _Job]) -> FileReport:
    return lint_path(*arguments)


def lint_paths(paths: Sequence[str], job: _Job, jobs: int, stdin_name: str, progress: Optional[TextIO]) -> Iterator[FileReport]:
    files = list(paths)
    if "-" in files:
        data = sys.stdin.buffer.read()
        files.remove("-")
        yield lint_path(stdin_name, job, stdin_data=data)
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            # map keeps the input order, so the output is the same for any --jobs.
            reports = pool.map(_lint_in_worker, [(path, job) for path in files], chunksize=8)
            yield from _with_progress(reports, len(files), progress)
    else:
        yield from _with_progress((lint_path(path, job) for path in files), len(files), progress)


def _with_progress(reports: Iterator[FileReport], total: int, stream: Optional[TextIO]) -> Iterator[FileReport]:
    for done, report in enumerate(reports, start=1):
        if stream is not None and (done % 25 == 0 or done == total):
            stream.write(f"\rtorchleak: {done}/{total} files")
            stream.flush()
        yield report
    if stream is not None and total:
        stream.write("\r" + " " * 40 + "\r")
        stream.flush()


def _progress_stream(file_count: int) -> Optional[TextIO]:
    """A progress line on stderr only for an interactive terminal, never in CI or pipes."""
    if file_count < 200 or os.environ.get("CI") or not sys.stderr.isatty() or not sys.stdout.isatty():
        return None
    return sys.stderr


def _usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    parser.print_usage(sys.stderr)
    sys.stderr.write(f"torchleak: error: {message}\n")
    return 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if options.list_rules:
        for rule in ALL_RULES:
            print(f"{rule.code}  {rule.name:<28} {rule.harm}")
        print(f"{NOTICE_CODE}  {rule_name(NOTICE_CODE):<28} notice (off unless selected)")
        return 0
    if options.explain:
        from torchleak.docs import render

        explained = RULES_BY_CODE.get(options.explain.strip().upper())
        if explained is None:
            return _usage_error(parser, f"unknown rule code {options.explain!r}; see --list-rules")
        print(render(explained))
        return 0
    if not options.paths:
        return _usage_error(parser, "give at least one PATH (or - for stdin)")
    if options.jobs < 1:
        return _usage_error(parser, "--jobs must be at least 1")
    try:
        job, exclude = configure(options)
    except ConfigError as error:
        sys.stderr.write(f"torchleak: error: {error}\n")
        return 2
    files = list(discover(options.paths, exclude, job.root, options.force_exclude))
    if options.fix or options.diff:
        status = run_fix(
            files, select=job.select, ignore_for=job.ignore_for, settings=job.settings,
            unsafe=options.unsafe_fixes, diff=options.diff, stdin_name=options.stdin_display_name,
        )
        return 0 if options.exit_zero else status
    job = replace(job, offer_fixes=options.format in ("json", "sarif"))
    reports = list(lint_paths(files, job, options.jobs, options.stdin_display_name, _progress_stream(len(files))))
    try:
        FORMATS[options.format](reports, sys.stdout, sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:  # `torchleak ... | head`: stop quietly, as the docs of `signal` advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    failed = any(report.failed for report in reports)
    return 0 if options.exit_zero or not failed else 1
