"""The one entry point every adapter uses: source text in, findings out, never an exception."""

from __future__ import annotations

import ast
import contextlib
import gc
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Optional

from torchleak.analysis.prefilter import Plan, Segment, plan
from torchleak.analysis.settings import Settings
from torchleak.analysis.torch_knowledge import PER_BATCH_NAMES
from torchleak.rule import Finding, Offer

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange

    from torchleak import findings_cache
    from torchleak.analysis.facts import FileFacts
    from torchleak.rule import Report, Rule

# libcst and the rules are imported only when a file passes the pre-filter: flake8 loads this
# module for every run, selected or not, and importing libcst alone costs about 0.3 s.

#: The rules' codes, written out so that the plugin can load without importing the rules
#: (tests/test_rule_contract.py checks it against ALL_RULES).
RULE_CODES: Final = ("TLK101", "TLK102", "TLK103", "TLK201", "TLK202", "TLK301", "TLK302")
#: The opt-in notice that a file was not analysed, and why.
NOTICE_CODE: Final = "TLK900"
DEFAULT_SELECT: Final = ("TLK1", "TLK2", "TLK3")
#: A file CPython cannot parse. Reported whatever ``select`` says (as ruff reports syntax
#: errors), unless ignored: ``--ignore TLK999``, ``per-file-ignores``; ``--select TLK999`` alone
#: reports only syntax errors. Under flake8, syntax errors are flake8's own E999.
SYNTAX_CODE: Final = "TLK999"
ALL_CODES: Final = RULE_CODES + (NOTICE_CODE, SYNTAX_CODE)

#: libcst's walk recurses about five frames per level of nesting; deeper files are skipped
#: (measured: a 190-deep nested call makes any libcst walk raise RecursionError).
MAX_NESTING: Final = 100
#: Larger files are skipped rather than parsed (libcst's parse is ~9x slower than ast's).
MAX_CHARACTERS: Final = 3_000_000

@dataclass(frozen=True)
class ParseError:
    """CPython rejected the source. ``point`` says whether line and column locate the error."""

    line: int
    column: int
    message: str
    point: bool = True


@dataclass(frozen=True)
class Result:
    """What linting one source gave: findings, or why it was not analysed."""

    findings: list[Finding] = field(default_factory=list)
    #: Why the file was not analysed (too deep, too large, libcst failure), else None.
    skipped: Optional[str] = None
    syntax_error: Optional[ParseError] = None


def is_selected(code: str, select: Collection[str] = DEFAULT_SELECT, ignore: Collection[str] = ()) -> bool:
    """flake8's rule: the longest matching prefix wins; a tie goes to ignore."""
    selected = max((len(prefix) for prefix in select if code.startswith(prefix)), default=-1)
    ignored = max((len(prefix) for prefix in ignore if code.startswith(prefix)), default=-1)
    return selected > ignored


def notice_selected(select: Collection[str], ignore: Collection[str] = ()) -> bool:
    """TLK900 is opt-in, like bugbear's B9 codes: ``--select TLK`` alone does not turn it on."""
    explicit = [prefix for prefix in select if NOTICE_CODE.startswith(prefix) and len(prefix) >= 4]
    return bool(explicit) and is_selected(NOTICE_CODE, explicit, ignore)


def syntax_selected(select: Collection[str] = DEFAULT_SELECT, ignore: Collection[str] = ()) -> bool:
    """Whether a syntax error is reported: always selected (at prefix length 3), unless ignored."""
    return is_selected(SYNTAX_CODE, (*select, "TLK"), ignore)


#: Seconds spent per phase of one ``check_source`` call, when the caller asks (the benchmark).
Phases = dict[str, float]


@contextmanager
def _phase(phases: Optional[Phases], name: str) -> Iterator[None]:
    if phases is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - start


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while one file is parsed and analysed.

    ``ast.parse`` and libcst allocate tens of nodes per line, all alive until the analysis ends,
    so the collector would traverse the growing trees again and again for nothing: measured on a
    5,000-line training file, it adds about 40 % to the lint. Reference counting still frees
    what dies; the cycles the analysis makes wait for the next collection after the file.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_source(
    source: str,
    *,
    select: Collection[str] = DEFAULT_SELECT,
    ignore: Collection[str] = (),
    tree: Optional[ast.AST] = None,
    settings: Settings = Settings(),
    apply_noqa: bool = False,
    fixes: bool = False,
    phases: Optional[Phases] = None,
) -> Result:
    """Lint ``source``. Never raises: failures become ``Result.skipped`` (and TLK900 if selected).
    With ``fixes``, each finding whose rule has a fix carries it as text edits (``Finding.fix``),
    built from the same analysis. ``phases``, when given, receives the seconds spent in each
    phase (``scripts/benchmark.py``)."""
    with collector_paused():
        return _check_source(source, select, ignore, tree, settings, apply_noqa, fixes, phases)


def _check_source(
    source: str,
    select: Collection[str],
    ignore: Collection[str],
    tree: Optional[ast.AST],
    settings: Settings,
    apply_noqa: bool,
    fixes: bool,
    phases: Optional[Phases],
) -> Result:
    codes = [code for code in RULE_CODES if is_selected(code, select, ignore)]
    notice = notice_selected(select, ignore)

    def skipped(reason: str) -> Result:
        findings = [Finding(1, 0, NOTICE_CODE, f"not analysed: {reason}")] if notice else []
        return Result(findings, skipped=reason)

    syntax = syntax_selected(select, ignore)
    if not codes and not syntax:
        return Result()
    if codes and len(source) > MAX_CHARACTERS:
        return skipped(f"larger than {MAX_CHARACTERS:,} characters")
    try:
        # Under flake8 the tree comes for free; the CLI parses so that it can report syntax errors.
        if tree is None:
            with _phase(phases, "ast.parse"):
                tree = ast.parse(source)
    except SyntaxError as error:
        return Result(syntax_error=ParseError(error.lineno or 1, (error.offset or 1) - 1, error.msg) if syntax else None)
    except ValueError as error:  # NUL bytes, on older Pythons
        return Result(syntax_error=ParseError(1, 0, str(error), point=False) if syntax else None)
    except (RecursionError, MemoryError) as error:
        # CPython itself cannot compile it (e.g. a 5,000-term `a + a + ...`): not our syntax error.
        message = f"too deeply nested for CPython's parser ({type(error).__name__})"
        return Result(syntax_error=ParseError(1, 0, message, point=False) if syntax else None)
    if not codes:
        return Result()
    with _phase(phases, "pre-filter"):
        scope = plan(source, tree, PER_BATCH_NAMES | settings.per_batch_methods, MAX_NESTING)
        if not scope.segments and scope.depth <= MAX_NESTING and settings.origin is not None:
            # (a subclass whose base, in another module, runs its methods per batch)
            hooks = _overridden_hooks(source, tree, settings)
            if hooks:
                scope = plan(source, tree, PER_BATCH_NAMES | settings.per_batch_methods | hooks, MAX_NESTING)
        if not scope.segments and scope.depth <= MAX_NESTING and settings.origin is not None:
            # (a meter or logger class another module's training loop hands a graph, once)
            keepers = _helper_keepers(source, tree, settings)
            if keepers:
                scope = plan(source, tree, PER_BATCH_NAMES | settings.per_batch_methods | keepers, MAX_NESTING)
    if scope.depth > MAX_NESTING:
        return skipped(f"nested more than {MAX_NESTING} levels deep")
    if not scope.segments:
        return Result()
    slot = None
    if settings.origin is not None:
        from torchleak import findings_cache

        with _phase(phases, "findings cache"):
            try:
                slot = findings_cache.slot_for(source, settings, codes, fixes)
                cached = findings_cache.read(slot) if slot is not None else None
            except Exception:  # a cache that cannot be used only costs time
                slot = cached = None
    try:
        if slot is not None and cached is not None:
            findings = cached
        else:
            if slot is not None and not fixes:
                findings = _lint_by_components(slot, tree, scope, codes, settings, phases)
            else:
                findings = _lint_segments(scope.segments, codes, settings, scope.no_grad_callees, source if fixes else None, phases)
            if slot is not None:
                with _phase(phases, "findings cache"), contextlib.suppress(Exception):
                    findings_cache.write(slot, findings, findings_cache.project_dependencies(settings))
    except RecursionError:
        return skipped("nested too deeply for libcst")
    except _LibcstRejected as error:
        return skipped(f"libcst cannot parse it ({error})")
    except Exception as error:  # the boundary: a linter bug must not break the host
        return skipped(f"internal error {type(error).__name__}: {error}")
    if apply_noqa:
        from torchleak.noqa import without_noqa

        with _phase(phases, "noqa"):
            findings = list(without_noqa(findings, source))
    return Result(findings)


def _helper_keepers(source: str, tree: ast.AST, settings: Settings) -> frozenset[str]:
    try:
        from torchleak.analysis.project import helper_keepers

        return helper_keepers(tree, source, settings)
    except Exception:  # (only a pre-filter's hint: without it the file is skipped, as before)
        return frozenset()


def _overridden_hooks(source: str, tree: ast.AST, settings: Settings) -> frozenset[str]:
    try:
        from torchleak.analysis.project import overridden_hooks

        return overridden_hooks(tree, source, settings)
    except Exception:  # (only a pre-filter's hint: without it the file is skipped, as before)
        return frozenset()


def lint_source(source: str, **options: object) -> list[Finding]:
    """The findings for ``source`` (see ``check_source`` for the options)."""
    return check_source(source, **options).findings  # type: ignore[arg-type]


class _LibcstRejected(Exception):
    """libcst cannot parse what CPython accepted."""


def _lint_segments(
    segments: Sequence[Segment],
    codes: Collection[str],
    settings: Settings,
    no_grad_callees: Optional[frozenset[str]] = None,
    fixes_for: Optional[str] = None,
    phases: Optional[Phases] = None,
) -> list[Finding]:
    """The findings of the segments; with ``fixes_for`` (the whole source), with their fixes."""
    with _phase(phases, "import libcst, analysis, rules"):
        import libcst as cst

        from torchleak.analysis.flow import analyse
        from torchleak.parsing import parse_segments, statements_code
        from torchleak.rules import ALL_RULES

    rules = [rule() for rule in ALL_RULES if rule.code in codes]
    try:
        with _phase(phases, "libcst parse"):
            parsed = parse_segments(segments, settings.origin)
    except cst.ParserSyntaxError as error:
        raise _LibcstRejected(error.message) from None
    # One module for the analysis, so that names and helpers resolve across segments.
    module = cst.Module(body=[statement for _, part in parsed for statement in part.body])

    def code() -> str:
        """``module.code``, from the segments' text (the project index asks for it)."""
        if len(parsed) != len(segments):
            return module.code
        return "".join(statements_code(segment.text, part) for segment, (_, part) in zip(segments, parsed))

    with _phase(phases, "analysis walks"):
        facts = analyse(module, settings, no_grad_callees, code=code)
    try:
        return _findings(parsed, facts, rules, fixes_for, phases)
    finally:
        facts.release()  # so that reference counting frees the tree here, not the collector later


def _lint_by_components(
    slot: findings_cache.Slot, tree: ast.AST, scope: Plan, codes: Collection[str], settings: Settings, phases: Optional[Phases]
) -> list[Finding]:
    """The findings of a file linted before: the components whose text did not change keep the
    findings stored for them (``analysis/components.py``), the others are parsed and analysed
    (with the imports) as one smaller file; then every component's findings are stored."""
    from torchleak import findings_cache
    from torchleak.analysis.components import component_digest, partition, segment_at

    with _phase(phases, "components"):
        try:
            record = findings_cache.read_components(slot)
        except Exception:  # a cache that cannot be used only costs time
            record = findings_cache.Record({}, {}, {})
        parts = partition(tree, scope.segments, PER_BATCH_NAMES | settings.per_batch_methods, record.names)
        digests = [component_digest(parts, component) for component in parts.components]
    segments = scope.segments
    # (Every changed component is analysed, loops or not: in a project, a helper without a loop
    # reports what the loops of the modules importing it keep through it.)
    changed = [component for component, digest in zip(parts.components, digests) if digest not in record.components]
    findings: list[Finding] = []
    if changed:
        wanted = sorted({*parts.context, *(position for component in changed for position in component.segments)})
        findings = _lint_segments([segments[position] for position in wanted], codes, settings, scope.no_grad_callees, None, phases)
    placed: dict[str, list[findings_cache.Placed]] = {digest: [] for digest in digests}
    rank_of = {position: (digest, rank) for component, digest in zip(parts.components, digests) for rank, position in enumerate(component.segments)}
    complete = True
    for finding in findings:
        position = segment_at(segments, finding.line)
        if position not in rank_of:
            complete = False  # (a finding outside every component: store nothing)
            continue
        digest, rank = rank_of[position]
        placed[digest].append((rank, finding.line - segments[position].first_line, finding.column, finding.code, finding.message))
    for component, digest in zip(parts.components, digests):
        if digest in record.components:
            kept = placed[digest] = record.components[digest]
            for rank, line, column, code, message in kept:
                findings.append(Finding(segments[component.segments[rank]].first_line + line, column, code, message))
    if complete:
        with _phase(phases, "components"), contextlib.suppress(Exception):
            deps = {**record.deps, **findings_cache.project_dependencies(settings)} if changed else record.deps
            findings_cache.write_components(slot, findings_cache.Record(placed, parts.names, deps))
    return sorted(findings)


def _findings(
    parsed: Sequence[tuple[int, cst.Module]],
    facts: FileFacts,
    rules: Sequence[Rule],
    fixes_for: Optional[str],
    phases: Optional[Phases],
) -> list[Finding]:
    """The rules' findings on the analysed segments (``parsed``: first line, tree)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    with _phase(phases, "rule queries"):
        reports = [(rule, report) for rule in rules for report in rule.check(facts)]
    if not reports:
        return []
    segment_of = {id(statement): index for index, (_, part) in enumerate(parsed) for statement in part.body}
    # Positions cost a codegen walk: resolve them only for the segments that hold a finding.
    resolved: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}

    def span(node: cst.CSTNode, near: Optional[cst.CSTNode] = None) -> Optional[tuple[int, int, int, int]]:
        """Where ``node`` is in the file; the segment of ``near`` (the reported node) is tried first."""
        node = facts.stand_ins.get(id(node), node)
        tops = [facts.top_of.get(id(candidate)) for candidate in (node, near) if candidate is not None]
        first = [segment_of[id(top)] for top in tops if top is not None and id(top) in segment_of]
        for index in [*first, *range(len(parsed))]:
            if index not in resolved:
                resolved[index] = MetadataWrapper(parsed[index][1], unsafe_skip_copy=True).resolve(PositionProvider)
            where = resolved[index].get(node)
            if where is not None:
                offset = parsed[index][0] - 1
                return where.start.line + offset, where.start.column, where.end.line + offset, where.end.column
        return None

    offer: Optional[Callable[[Rule, Report], Optional[Offer]]] = None
    if fixes_for is not None:
        from torchleak.edits import offer_fix

        lines = fixes_for.splitlines()
        newline = "\r\n" if "\r\n" in fixes_for[: len(lines[0]) + 2 if lines else 0] else "\n"

        def offer_for(rule: Rule, report: Report) -> Optional[Offer]:
            return offer_fix(rule, report, facts, lambda node: span(node, report.node), lambda n: lines[n - 1] if 0 < n <= len(lines) else "", newline)

        offer = offer_for

    findings: dict[tuple[int, int, str], Finding] = {}
    with _phase(phases, "positions, messages, fixes"):
        for rule, report in reports:
            where = span(report.node)
            if where is None:
                raise LookupError("a reported node is in no segment")
            line, column = where[0], where[1]
            # One finding per place and code (a store seen both inside a forward and at its call).
            if (line, column, rule.code) not in findings:
                fix = offer(rule, report) if offer is not None else None
                findings[(line, column, rule.code)] = Finding(line, column, rule.code, rule.format(report), fix)
    return sorted(findings.values())


def _lint_relevant(source: str, codes: Collection[str] = RULE_CODES, settings: Settings = Settings()) -> list[Finding]:
    """Analyse all of ``source`` (no pre-filter): for tests and fuzzing."""
    return _lint_segments([Segment(1, source)], codes, settings)
