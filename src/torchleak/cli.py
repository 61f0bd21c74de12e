"""The command-line adapter: find files, read them, hand them to the engine, print the results."""

from __future__ import annotations

import argparse
import io
import os
import sys
import tokenize
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, TextIO, TypeVar

from torchleak import __version__
from torchleak.analysis.settings import Origin, Settings
from torchleak.config import Config, ConfigError, PerFileIgnores, find_from, load, load_cached, parse_codes, parse_per_file_ignores
from torchleak.discovery import Exclusions, discover, excluded_by_name
from torchleak.engine import DEFAULT_SELECT, NOTICE_CODE, SYNTAX_CODE, check_source
from torchleak.fix import fix_files, offered_fixes
from torchleak.formats import FORMATS, FileReport, TextStyle, rule_name, write_notes, write_statistics, write_text
from torchleak.notebooks import NotebookError, extract, is_notebook
from torchleak.rules import ALL_RULES

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
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (recursive: *.py, *.ipynb; default: .); - reads stdin")
    # Options that [tool.torchleak] can also set default to None: "not given here".
    parser.add_argument("--select", type=_codes, help="codes or prefixes to report (default: TLK1,TLK2,TLK3)")
    parser.add_argument("--ignore", type=_codes, help="codes or prefixes to leave out")
    parser.add_argument("--extend-select", type=_codes, help="codes to add to --select, e.g. TLK900")
    parser.add_argument("--per-file-ignores", type=_per_file_ignores, metavar="PATTERN:CODES", help="codes to leave out in files matching a glob; pairs separated by spaces")
    parser.add_argument("--exclude", type=_comma_list, metavar="GLOBS", help="glob patterns of paths to skip, besides .git, .venv, build and the like")
    parser.add_argument("--force-exclude", action="store_true", help="apply exclusions to files named on the command line and to --stdin-display-name too (as pre-commit needs)")
    parser.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None, help="also walk into what .gitignore and .git/info/exclude ignore")
    parser.add_argument("--model-names", type=_comma_list, help="extra callables that run a model")
    parser.add_argument("--loss-names", type=_comma_list, help="extra callables that compute a loss")
    parser.add_argument("--per-batch-methods", type=_comma_list, help="extra methods called once per batch")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the cache of the project's module summaries (.torchleak_cache)")
    parser.add_argument("--cache-dir", metavar="DIR", help="where to keep that cache (default: .torchleak_cache at the project root)")
    parser.add_argument("--config", metavar="PYPROJECT", help="read [tool.torchleak] from this file instead of searching")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--show-source", action="store_true", help="text format: show the source line of each finding")
    parser.add_argument("--statistics", action="store_true", help="count the findings of each code instead of listing them (text, json)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print the findings only: no summary, notes or warnings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes in place (notebooks too); report what is left")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply (with --fix, --diff) or count as fixable (alone) the fixes that may change behaviour")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPU count)")
    parser.add_argument("--stdin-display-name", default="stdin", help="the name to report for input read from stdin")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule (code or name, e.g. accumulated-loss) and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--version", action="version", version=f"torchleak {__version__}")
    return parser


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
    #: Work out each finding's fix (the fixable marker, the summary, json and sarif edits).
    offer_fixes: bool = True
    #: Keep the source lines (for --show-source).
    keep_source: bool = False
    #: The cache of the project index (None: at the project root) and whether to use it.
    cache_dir: Optional[str] = None
    use_cache: bool = True
    #: The directories given on the command line (absolute).
    linted_directories: tuple[str, ...] = ()

    def for_file(self, path: str) -> _Job:
        """The job for one file: its imports of the project's own modules are followed
        (``-`` stands for the stdin display name, followed only when one is given)."""
        if path in ("-", "stdin"):
            return self
        absolute = os.path.abspath(path)
        linted = next((d for d in self.linted_directories if absolute.startswith(d.rstrip(os.sep) + os.sep)), None)
        return replace(self, settings=replace(self.settings, origin=Origin(path, self.cache_dir, self.use_cache, linted)))

    def ignore_for(self, path: str) -> tuple[str, ...]:
        extra = [code for pattern, codes in self.per_file_ignores if Exclusions((pattern,), self.root).matches(path) for code in codes]
        return self.ignore + tuple(extra)


def _given(value: Optional[T], configured: Optional[T], default: T) -> T:
    """A command-line value replaces the configured one, which replaces the default."""
    return value if value is not None else configured if configured is not None else default


class Resolver:
    """The configuration of each file: the closest pyproject.toml with ``[tool.torchleak]`` (as
    ruff resolves it), or the one ``--config`` names, or none with ``--isolated``; the flags
    replace the keys of the same name everywhere. Raises ConfigError for an invalid table."""

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self._fixed: Optional[Config] = None
        if options.isolated:
            self._fixed = Config()
        elif options.config is not None:
            self._fixed = load(Path(options.config))
        self._jobs: dict[Optional[Path], _Job] = {}

    def config_for(self, directory: str) -> Config:
        if self._fixed is not None:
            return self._fixed
        return load_cached(find_from(directory))

    def job_for(self, path: str) -> _Job:
        """The job for a file (or, for ``-``, the stdin display name or the working directory)."""
        if path == "-":
            name = self.options.stdin_display_name
            directory = os.path.dirname(os.path.abspath(name)) if name != "stdin" else os.getcwd()
        else:
            directory = os.path.dirname(os.path.abspath(path))
        config = self.config_for(directory)
        job = self._jobs.get(config.path)
        if job is None:
            job = self._jobs[config.path] = self._job(config)
        return job

    def _job(self, config: Config) -> _Job:
        options = self.options
        return _Job(
            select=_given(options.select, config.select, DEFAULT_SELECT) + _given(options.extend_select, config.extend_select, ()),
            ignore=_given(options.ignore, config.ignore, ()),
            settings=Settings(
                model_names=frozenset(_given(options.model_names, config.model_names, ())),
                loss_names=frozenset(_given(options.loss_names, config.loss_names, ())),
                per_batch_methods=frozenset(_given(options.per_batch_methods, config.per_batch_methods, ())),
            ),
            per_file_ignores=_given(options.per_file_ignores, config.per_file_ignores, ()),
            root=str(config.root),
            keep_source=bool(getattr(options, "show_source", False)),
            cache_dir=_given(getattr(options, "cache_dir", None), config.cache_dir, None),
            use_cache=not getattr(options, "no_cache", False),
        )

    def exclusions_for(self, directory: str) -> Exclusions:
        config = self.config_for(directory)
        return Exclusions(_given(self.options.exclude, config.exclude, ()), str(config.root))

    def respect_gitignore(self) -> bool:
        return bool(_given(self.options.respect_gitignore, self.config_for(os.getcwd()).respect_gitignore, True))


def configure(options: argparse.Namespace) -> tuple[_Job, tuple[str, ...]]:
    """The job for the first path and its exclusions (kept for scripts); raises ConfigError."""
    resolver = Resolver(options)
    first = (options.paths or ["."])[0]
    directory = first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first))
    return resolver.job_for(os.path.join(directory, "_")), resolver.exclusions_for(directory).patterns


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
    ignore = job.ignore_for(path)
    settings = job.for_file(path).settings
    # The fixes come with the findings, from the same parse and analysis.
    result = check_source(source, select=job.select, ignore=ignore, settings=settings, apply_noqa=True, fixes=job.offer_fixes)
    fixes = offered_fixes(result.findings) if job.offer_fixes else {}
    keep = result.syntax_error is not None or job.keep_source
    return FileReport(path, result, source_lines=source.splitlines() if keep else [], cells=cells, fixes=fixes)


def _lint_in_worker(arguments: tuple[str, _Job]) -> FileReport:
    return lint_path(*arguments)


def lint_paths(
    paths: Sequence[tuple[str, _Job]], jobs: int, stdin_name: str, progress: Optional[TextIO], stdin_data: Optional[bytes] = None
) -> Iterator[FileReport]:
    files = [(path, job) for path, job in paths if path != "-"]
    for path, job in paths:
        if path == "-":
            data = sys.stdin.buffer.read() if stdin_data is None else stdin_data
            yield lint_path(stdin_name, job, stdin_data=data)
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD:
        yield from _with_progress(_in_workers(files, jobs), len(files), progress)
    else:
        yield from _with_progress((lint_path(path, job) for path, job in files), len(files), progress)


def _in_workers(files: list[tuple[str, _Job]], jobs: int) -> Iterator[FileReport]:
    """The reports of ``files`` from a pool of ``jobs`` processes, in the input order (the
    output is the same for any --jobs). A worker the system stops (out of memory, a signal)
    breaks the pool: the files not yet reported are linted here, one after the other."""
    done = 0
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for report in pool.map(_lint_in_worker, files, chunksize=8):
                done += 1
                yield report
    except BrokenProcessPool:
        sys.stderr.write(
            f"torchleak: a worker process was stopped (out of memory?); linting the other {len(files) - done} files in one process\n"
        )
        for path, job in files[done:]:
            yield lint_path(path, job)


def _with_progress(reports: Iterator[FileReport], total: int, stream: Optional[TextIO]) -> Iterator[FileReport]:
    for done, report in enumerate(reports, start=1):
        if stream is not None and (done % 25 == 0 or done == total):
            stream.write(f"\rtorchleak: {done}/{total} files")
            stream.flush()
        yield report
    if stream is not None and total:
        stream.write("\r" + " " * 40 + "\r")
        stream.flush()


def _progress_stream(file_count: int, quiet: bool) -> Optional[TextIO]:
    """A progress line on stderr only for an interactive terminal, never in CI or pipes."""
    if quiet or file_count < 200 or os.environ.get("CI") or not sys.stderr.isatty() or not sys.stdout.isatty():
        return None
    return sys.stderr


def use_color(stream: TextIO) -> bool:
    """Colour for a terminal; ``NO_COLOR`` (any value) turns it off, ``FORCE_COLOR`` on
    (https://no-color.org, https://force-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def _usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """One line, as ruff prints it: the usage is for --help."""
    sys.stderr.write(f"torchleak: error: {message}\n")
    return 2


def _explain(query: str) -> int:
    from torchleak.docs import explain, lookup

    code = lookup(query)
    if code is None:
        known = ", ".join(rule.code for rule in ALL_RULES)
        sys.stderr.write(f"torchleak: error: no rule {query!r}; give a code or a name ({known}, {NOTICE_CODE}, {SYNTAX_CODE}; see --list-rules)\n")
        return 2
    sys.stdout.write(explain(code, terminal=sys.stdout.isatty()))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if options.list_rules:
        from torchleak.docs import harm_label

        for rule in ALL_RULES:
            print(f"{rule.code}  {rule.name:<28} {harm_label(rule.harm)}")
        print(f"{NOTICE_CODE}  {rule_name(NOTICE_CODE):<28} notice (off unless selected)")
        print(f"{SYNTAX_CODE}  {rule_name(SYNTAX_CODE):<28} error (on unless ignored)")
        return 0
    if options.explain:
        return _explain(options.explain)
    if options.jobs < 1:
        return _usage_error(parser, "--jobs must be at least 1")
    if options.statistics and options.format not in ("text", "json"):
        return _usage_error(parser, f"--statistics is printed as text or json, not {options.format}")
    if options.statistics and options.diff:  # as ruff: a diff has no findings to count
        return _usage_error(parser, "--statistics counts findings; it cannot be combined with --diff")
    paths = options.paths or ["."]
    try:
        resolver = Resolver(options)
        found = discover(paths, resolver.exclusions_for, force_exclude=options.force_exclude, respect_gitignore=resolver.respect_gitignore())
        linted_directories = tuple(os.path.abspath(path) for path in paths if path != "-" and os.path.isdir(path))
        targets = [(path, replace(resolver.job_for(path), linted_directories=linted_directories)) for path in found.files]
    except ConfigError as error:
        sys.stderr.write(f"torchleak: error: {error}\n")
        return 2
    stdin_data: Optional[bytes] = None
    if "-" in found.files and options.force_exclude and options.stdin_display_name != "stdin":
        name = options.stdin_display_name
        if excluded_by_name(name, resolver.exclusions_for(os.path.dirname(os.path.abspath(name)))):
            # As ruff: an excluded buffer is not linted, and --fix hands it back unchanged.
            stdin_data = sys.stdin.buffer.read()
            targets = [(path, job) for path, job in targets if path != "-"]
            if options.fix and not options.diff:
                sys.stdout.buffer.write(stdin_data)
                if not targets:
                    return 0
    if not options.quiet:
        for path in found.empty:
            sys.stderr.write(f"torchleak: warning: {path}: no Python files or notebooks found\n")
    unreadable = [FileReport(path, error=message) for path, message in found.unreadable]
    out: TextIO = sys.stdout
    opened: Optional[TextIO] = None
    if options.output_file:
        try:
            opened = out = open(options.output_file, "w", encoding="utf-8")
        except OSError as error:
            sys.stderr.write(f"torchleak: error: cannot write {options.output_file}: {error.strerror or error}\n")
            return 2
    try:
        style = TextStyle(
            color=opened is None and use_color(out), show_source=options.show_source,
            unsafe_fixes=options.unsafe_fixes, summary=not options.quiet,
        )

        def render(reports: Sequence[FileReport], stream: TextIO, err: TextIO, style: TextStyle = style) -> None:
            """The findings in the chosen --format (or counted, with --statistics), then the notes."""
            if options.statistics:
                write_statistics(reports, stream, style, as_json=options.format == "json")
            elif options.format == "text":
                write_text(reports, stream, err, style)
            else:
                FORMATS[options.format](reports, stream, err)
            if not options.quiet:
                write_notes(reports, err)

        if options.fix or options.diff:
            try:
                # As ruff: the findings left after fixing come in the chosen --format, with
                # the "Fixed ..." summary after them in text and on stderr otherwise.
                status = fix_files(
                    [(path, job.for_file(options.stdin_display_name if path == "-" else path)) for path, job in targets], unsafe=options.unsafe_fixes, diff=options.diff, stdin_name=options.stdin_display_name,
                    writer=lambda reports, stream, err: render(reports, stream, err, replace(style, summary=False)),
                    out=out, err=sys.stderr, quiet=options.quiet, extra_reports=unreadable,
                    machine_readable=options.format != "text",
                )
                out.flush()
            except BrokenPipeError:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return 1
            return 0 if options.exit_zero else status
        progress = _progress_stream(len(targets), options.quiet)
        reports = unreadable + list(lint_paths(targets, options.jobs, options.stdin_display_name, progress, stdin_data))
        try:
            render(reports, out, sys.stderr)
            out.flush()
        except BrokenPipeError:  # `torchleak ... | head`: stop quietly, as the docs of `signal` advise
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        if opened is not None:
            opened.close()
    failed = any(report.failed for report in reports)
    return 0 if options.exit_zero or not failed else 1
