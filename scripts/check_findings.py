"""Record torchleak's findings on the zoo, the realistic examples and the pinned corpus, and
check that a change (a speed-up, say) leaves every one of them as it was.

Usage::

    python scripts/check_findings.py --save before.json           # record (zoo + corpus)
    python scripts/check_findings.py --compare before.json        # exit 1 on any difference
    python scripts/check_findings.py --whole                      # engine == whole-file analysis
    python scripts/check_findings.py --components                 # components alone == whole file

``--compare`` prints every file whose findings (line, column, code, message) or skip reason
changed. ``--whole`` checks what issue 12 asks of the pre-filter: for every file, the engine's
findings equal those of a whole-file analysis (no pre-filter, every statement parsed by libcst).
``--components`` checks what an edit's re-lint relies on: each component of a file
(``analysis/components.py``) analysed alone gives exactly the file's findings.
The corpus is the one ``shared/perf/make_corpus.sh DIR`` builds (``--corpus DIR``); without it,
only the zoo and the realistic examples are checked.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Callable, Optional, TypeVar

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/tmp/perfcorpus")
#: Every rule, the not-analysed notice (so a changed skip reason shows) and syntax errors.
SELECT = ("TLK", "TLK900")

Record = dict[str, object]
T = TypeVar("T")


def local_files() -> list[Path]:
    tests = ROOT / "tests"
    return sorted([*tests.glob("zoo/*.py"), *tests.glob("realistic/*.py")])


def corpus_files(corpus: Path) -> list[Path]:
    root = corpus / "src" if (corpus / "src").is_dir() else corpus
    return sorted(path for path in root.rglob("*.py") if path.is_file())


def _name(path: Path, corpus: Optional[Path]) -> str:
    for base in (ROOT, corpus):
        if base is not None:
            try:
                return path.relative_to(base).as_posix()
            except ValueError:
                pass
    return path.as_posix()


def engine_record(path: Path, project: bool = True) -> Record:
    """The engine's answer for one file, as the CLI gives it with ``--no-cache``: decoded like
    CPython, ``# noqa`` applied, imports of the project's own modules followed (unless not
    ``project``: the file alone, as flake8 sees stdin)."""
    from torchleak.analysis.settings import Origin, Settings
    from torchleak.cli import decode
    from torchleak.engine import check_source

    settings = Settings(origin=Origin(str(path), None, False)) if project else Settings()
    result = check_source(decode(path.read_bytes()), select=SELECT, settings=settings, apply_noqa=True)
    return {
        "findings": [[f.line, f.column, f.code, f.message] for f in result.findings],
        "skipped": result.skipped,
        "syntax_error": None if result.syntax_error is None else list(result.syntax_error.__dict__.values()),
    }


def whole_difference(path: Path) -> Optional[str]:
    """Why the engine and a whole-file analysis disagree on ``path``, or None when they agree."""
    from torchleak.cli import decode
    from torchleak.engine import RULE_CODES, _lint_relevant, check_source

    source = decode(path.read_bytes())
    result = check_source(source, select=RULE_CODES)
    if result.syntax_error is not None or result.skipped is not None:
        return None  # neither analyses it
    try:
        whole = _lint_relevant(source)
    except RecursionError:
        return None  # too deep for libcst walked whole: the engine skips it the same way
    except Exception as error:  # libcst rejects it: the engine says so through ``skipped``
        return f"whole-file analysis failed: {type(error).__name__}: {error}"
    if whole != result.findings:
        return f"engine {[(f.line, f.code) for f in result.findings]} != whole file {[(f.line, f.code) for f in whole]}"
    return None


def component_difference(path: Path, project: bool = False) -> Optional[str]:
    """Why analysing each component of ``path`` alone (with the file's imports,
    ``analysis/components.py``) and analysing the engine's segments together disagree, or None."""
    import ast

    from torchleak.analysis.components import partition
    from torchleak.analysis.prefilter import plan
    from torchleak.analysis.settings import Origin, Settings
    from torchleak.analysis.torch_knowledge import PER_BATCH_METHODS
    from torchleak.cli import decode
    from torchleak.engine import MAX_NESTING, RULE_CODES, _lint_segments

    source = decode(path.read_bytes())
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    scope = plan(source, tree, PER_BATCH_METHODS, MAX_NESTING)
    if scope.depth > MAX_NESTING or not scope.segments:
        return None
    settings = Settings(origin=Origin(str(path), None, False)) if project else Settings()
    segments = scope.segments
    parts = partition(tree, segments, PER_BATCH_METHODS)
    if len(parts.components) < 2:
        return None  # (one component: the engine's own analysis)
    try:
        together = _lint_segments(segments, RULE_CODES, settings, scope.no_grad_callees)
    except Exception:  # (what the engine reports as not analysed)
        return None
    alone = []
    for component in parts.components:
        wanted = sorted({*parts.context, *component.segments})
        alone += _lint_segments([segments[position] for position in wanted], RULE_CODES, settings, scope.no_grad_callees)
    if sorted(alone) != together:
        missing = sorted(set(together) - set(alone))
        extra = sorted(set(alone) - set(together))
        return f"{len(parts.components)} components: alone lose {[(f.line, f.code) for f in missing]}, add {[(f.line, f.code) for f in extra]}"
    return None


def single_file_record(path: Path) -> Record:
    return engine_record(path, project=False)


def run_all(function: Callable[[Path], T], paths: Sequence[Path], jobs: int) -> Iterator[T]:
    """``function`` of every path, in order, in ``jobs`` worker processes."""
    if jobs <= 1:
        yield from map(function, paths)
        return
    with Pool(jobs) as pool:
        yield from pool.imap(function, paths, chunksize=8)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="dir built by make_corpus.sh")
    parser.add_argument("--no-corpus", action="store_true", help="check the zoo and the realistic examples only")
    parser.add_argument("--jobs", "-j", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--single-file", action="store_true",
                        help="each file alone, without following imports of its project's modules (much faster on the corpus)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write every file's findings to this JSON file")
    group.add_argument("--compare", type=Path, help="compare every file's findings with a --save'd JSON file")
    group.add_argument("--whole", action="store_true", help="check engine == whole-file analysis on every file")
    group.add_argument("--components", action="store_true",
                       help="check that each component analysed alone gives the whole file's findings")
    args = parser.parse_args(argv)

    paths = local_files()
    corpus = None if args.no_corpus or not args.corpus.is_dir() else args.corpus
    if corpus is not None:
        paths += corpus_files(corpus)
    elif not args.no_corpus:
        print(f"no corpus at {args.corpus}: checking the zoo and the realistic examples only", file=sys.stderr)
    names = [_name(path, corpus) for path in paths]

    if args.whole:
        differing = [(name, why) for name, why in zip(names, run_all(whole_difference, paths, args.jobs)) if why]
        for name, why in differing:
            print(f"{name}: {why}")
        print(f"{len(paths):,} files, {len(differing)} where the engine and a whole-file analysis differ")
        return 1 if differing else 0

    if args.components:
        differing = [(name, why) for name, why in zip(names, run_all(component_difference, paths, args.jobs)) if why]
        for name, why in differing:
            print(f"{name}: {why}")
        print(f"{len(paths):,} files, {len(differing)} where a component alone and the whole file differ")
        return 1 if differing else 0

    records = dict(zip(names, run_all(single_file_record if args.single_file else engine_record, paths, args.jobs)))
    if args.save:
        args.save.write_text(json.dumps(records, indent=0, sort_keys=True), encoding="utf-8")
        total = sum(len(findings) for record in records.values() if isinstance(findings := record["findings"], list))
        print(f"{len(records):,} files, {total} findings saved to {args.save}")
        return 0
    before: dict[str, Record] = json.loads(args.compare.read_text(encoding="utf-8"))
    changed = [name for name in sorted(set(before) | set(records)) if before.get(name) != records.get(name)]
    for name in changed:
        print(f"{name}:\n  before {before.get(name)}\n  after  {records.get(name)}")
    print(f"{len(records):,} files checked against {len(before):,} recorded: {len(changed)} differ")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
