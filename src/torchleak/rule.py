"""The contract every rule module fulfils, and the values the engine hands back."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from textwrap import dedent
from typing import TYPE_CHECKING, ClassVar, Iterator, Literal, Optional

if TYPE_CHECKING:
    import libcst as cst

    from torchleak.analysis.facts import Event, FileFacts, Loop

#: ``# TLK101`` markers in a flagged example name the code expected on that line.
_MARKER = re.compile(r"#\s*(TLK\d{3})\b")


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
    """A fix as text edits on the linted source (``--fix``, JSON and SARIF output)."""

    safety: str
    description: str
    edits: tuple[TextEdit, ...]
    reason: str = ""


@dataclass(frozen=True, order=True)
class Finding:
    """One report: 1-based line, 0-based column (flake8 adds 1 when printing)."""

    line: int
    column: int
    code: str
    message: str
    #: Its fix as text edits, when the engine was asked for fixes and the rule has one.
    fix: Optional[Offer] = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        return f"{self.code} {self.message}"


@dataclass(frozen=True)
class Report:
    """What a rule's ``check`` yields: the node to point at, the message's fields, and the
    analysis event it reports (with the loop it leaks across), from which its fix starts."""

    node: cst.CSTNode
    fields: dict[str, str] = field(default_factory=dict)
    event: Optional[Event] = None
    loop: Optional[Loop] = None


#: How far a rule's automatic fix can be trusted, in Ruff's terms. "safe": the program behaves
#: as before apart from the leak, and ``torchleak --fix`` applies it; "unsafe": it may change
#: behaviour (a gradient, a type, a value the analysis cannot follow), applied only with
#: ``--unsafe-fixes``; "none": the fix needs a decision the analysis cannot make.
FixSafety = Literal["safe", "unsafe", "none"]


@dataclass(frozen=True)
class Edit:
    """One change to the parsed module, by node identity (positions are resolved when applied).

    ``replacement`` replaces ``node``; ``before`` and ``after`` are small statements inserted
    around the statement ``node`` (on lines of their own in an indented block, or joined with
    ``;`` in a one-line suite), composing with replacements inside it.
    """

    node: cst.CSTNode
    replacement: Optional[cst.CSTNode] = None
    before: tuple[cst.BaseSmallStatement, ...] = ()
    after: tuple[cst.BaseSmallStatement, ...] = ()


@dataclass(frozen=True)
class Fix:
    """What a rule's ``fix`` offers for one report: the edits, and whether they are safe."""

    safety: Literal["safe", "unsafe"]
    #: What the fix does, for people: "replace 'loss' with 'loss.item()'".
    description: str
    edits: tuple[Edit, ...]
    #: What the analysis established (safe), or what it could not (unsafe).
    reason: str = ""


@dataclass(frozen=True)
class Flagged:
    """Code the rule must report, on exactly the lines carrying a ``# TLKnnn`` marker."""

    source: str
    note: str = ""

    @property
    def code(self) -> str:
        return dedent(self.source).strip("\n") + "\n"

    @property
    def expected(self) -> set[tuple[int, str]]:
        return {
            (number, match.group(1))
            for number, line in enumerate(self.code.splitlines(), start=1)
            for match in _MARKER.finditer(line)
        }


@dataclass(frozen=True)
class Clean:
    """A look-alike that every rule must leave silent, and why it does not leak."""

    source: str
    why: str

    @property
    def code(self) -> str:
        return dedent(self.source).strip("\n") + "\n"


#: Which meter shows a demo's harm: tensor bytes held per iteration, host-heap bytes per
#: iteration (autograd nodes that hold no tensor storage), a raised peak that does not grow,
#: or an exception the leaky program raises.
Meter = Literal["tensor", "heap", "peak", "error"]


@dataclass(frozen=True)
class LeakDemo:
    """A runnable demonstration: ``setup`` runs once, then ``leaky`` or ``fixed`` runs per iteration.

    ``setup`` must bind ``loader`` (an iterable of batches). The step bodies run in the
    namespace ``setup`` built, with ``batch`` bound to the next item of ``loader`` (cycled),
    so state carried across iterations lives in that namespace, as it does in a training
    script. ``program`` shows the linter the same code as one script with its loop.
    """

    setup: str
    leaky: str
    fixed: str
    meter: Meter
    #: What the leaky step does to the meter on CPU, in words next to the exact figure the
    #: memory suite asserts, e.g. "holds 2,097,152 B more tensor memory every iteration".
    expectation: str = ""
    #: For meter == "error": a fragment of the exception message the leaky program raises.
    raises: str = ""

    def program(self, body: str) -> str:
        """The setup followed by ``body`` inside a training loop, as the linter sees it."""
        step = dedent(body).strip("\n")
        indented = "\n".join(("    " + line) if line else "" for line in step.splitlines())
        return dedent(self.setup).strip("\n") + "\n\nfor batch in loader:\n" + indented + "\n"


class Rule:
    """One leak pattern. Subclasses set the class variables and implement ``check``.

    The docstring uses Ruff's sections (## What it does, ## Why is this bad?, ## Known problems)
    and is rendered into ``docs/rules/<code>.md`` together with the examples and the demo.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    #: A ``str.format`` template filled from ``Report.fields``.
    message: ClassVar[str]
    #: "leak" for growth per iteration, "peak" for a raised peak, "error" for a crash.
    harm: ClassVar[Literal["leak", "peak", "error"]] = "leak"
    flagged: ClassVar[tuple[Flagged, ...]] = ()
    clean: ClassVar[tuple[Clean, ...]] = ()
    fixed_example: ClassVar[str] = ""
    demo: ClassVar[LeakDemo | None] = None

    #: The best a fix of this rule can be (a given report's fix may be downgraded to unsafe),
    #: and why: rendered on the rule's page. See ``FixSafety``.
    fix_safety: ClassVar[FixSafety] = "none"
    fix_rationale: ClassVar[str] = ""

    def check(self, facts: FileFacts) -> Iterator[Report]:
        raise NotImplementedError

    def fix(self, report: Report, facts: FileFacts) -> Optional[Fix]:
        """The edit that removes ``report``'s leak, or None where it needs a person."""
        return None

    @classmethod
    def format(cls, report: Report) -> str:
        return cls.message.format(**report.fields)
