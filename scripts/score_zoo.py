"""Score torchleak (and a recorded peer) against the leak zoo in tests/zoo.

Every zoo file is a small, realistic piece of training code modelled on a public report. Its
header says whether it really leaks (``# Verdict: leak | clean``) and every line where a
finding is expected ends with a marker comment such as ``# TLK101``. This script lints each
file with ``torchleak.engine.lint_source`` (default selection) and compares the ``(line, code)``
pairs found with the markers:

* per rule and overall: true positives, false positives, false negatives, precision, recall;
* per case: a case counts as flagged when it has any finding, compared with its verdict.

Usage::

    python scripts/score_zoo.py               # print the tables
    python scripts/score_zoo.py --json        # machine-readable results
    python scripts/score_zoo.py --write-docs  # regenerate docs/accuracy.md
    python scripts/score_zoo.py --check       # exit 1 if docs/accuracy.md is stale

torch-preflight's findings on the same files are read from tests/zoo/peer_results.json, which
``scripts/score_peer.py`` records, so that the comparison needs no peer installed.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
DOC = ROOT / "docs" / "accuracy.md"
PEER_RESULTS = ZOO / "peer_results.json"
COMMAND = "python scripts/score_zoo.py --write-docs"

#: One expected or reported finding: (1-based line, rule code).
Key = Tuple[int, str]

#: A marker comment: ``# TLK101``, or several codes on one line (``# TLK101 TLK102``).
MARKER = re.compile(r"^#\s*(TLK\d{3}(?:[\s,]+TLK\d{3})*)\s*$")
CODE = re.compile(r"TLK\d{3}")
VERDICT = re.compile(r"^#\s*Verdict:\s*(\S+)\s*$", re.MULTILINE)
SOURCE = re.compile(r"^#\s*Source:\s*(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    """One zoo file: its name, the verdict its header states, and the findings it expects."""

    name: str
    verdict: Optional[str]
    source: Optional[str]
    expected: frozenset[Key]


def markers(text: str) -> frozenset[Key]:
    """The ``(line, code)`` pairs named by marker comments (comments only, never strings)."""
    found: set[Key] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type != tokenize.COMMENT:
            continue
        match = MARKER.match(token.string)
        if match:
            found.update((token.start[0], code) for code in CODE.findall(match.group(1)))
    return frozenset(found)


def read_case(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    verdict = VERDICT.search(text)
    source = SOURCE.search(text)
    return Case(
        name=path.name,
        verdict=verdict.group(1) if verdict else None,
        source=source.group(1) if source else None,
        expected=markers(text),
    )


def zoo_files(zoo: Path = ZOO) -> list[Path]:
    return sorted(zoo.glob("*.py"))


@dataclass
class Tally:
    """Counts for one rule (or all of them) and the figures they give."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> Optional[float]:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> Optional[float]:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def as_dict(self) -> dict[str, object]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": self.precision, "recall": self.recall}


@dataclass
class CaseTally:
    """Case level: a case is flagged when it has any finding; its verdict says whether it should be."""

    flagged_leaks: int = 0  # true positives
    flagged_clean: int = 0  # false positives
    missed_leaks: int = 0  # false negatives
    silent_clean: int = 0  # true negatives

    @property
    def precision(self) -> Optional[float]:
        flagged = self.flagged_leaks + self.flagged_clean
        return self.flagged_leaks / flagged if flagged else None

    @property
    def recall(self) -> Optional[float]:
        leaks = self.flagged_leaks + self.missed_leaks
        return self.flagged_leaks / leaks if leaks else None

    def as_dict(self) -> dict[str, object]:
        return {
            "flagged_leaks": self.flagged_leaks,
            "flagged_clean": self.flagged_clean,
            "missed_leaks": self.missed_leaks,
            "silent_clean": self.silent_clean,
            "precision": self.precision,
            "recall": self.recall,
        }


@dataclass
class Scores:
    """Everything the tables show, for one tool."""

    per_rule: dict[str, Tally] = field(default_factory=dict)
    overall: Tally = field(default_factory=Tally)
    cases: CaseTally = field(default_factory=CaseTally)
    #: (file, line, code) expected but not reported, and reported but not expected.
    missed: list[tuple[str, int, str]] = field(default_factory=list)
    false: list[tuple[str, int, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "per_rule": {code: tally.as_dict() for code, tally in sorted(self.per_rule.items())},
            "overall": self.overall.as_dict(),
            "cases": self.cases.as_dict(),
            "missed": [{"file": f, "line": line, "code": code} for f, line, code in self.missed],
            "false": [{"file": f, "line": line, "code": code} for f, line, code in self.false],
        }


def score(
    cases: Iterable[Case],
    found: Mapping[str, Iterable[Key]],
    flagged: Optional[Mapping[str, bool]] = None,
) -> Scores:
    """Compare what a tool found (per file name) with the cases' markers and verdicts.

    ``flagged`` overrides whether a case counts as flagged (for a peer whose findings include
    some that map to no rule code); by default a case is flagged when it has any finding.
    """
    scores = Scores()
    for case in sorted(cases, key=lambda c: c.name):
        reported = frozenset(found.get(case.name, ()))
        for line, code in sorted(case.expected | reported):
            tally = scores.per_rule.setdefault(code, Tally())
            if (line, code) in case.expected and (line, code) in reported:
                tally.tp += 1
                scores.overall.tp += 1
            elif (line, code) in case.expected:
                tally.fn += 1
                scores.overall.fn += 1
                scores.missed.append((case.name, line, code))
            else:
                tally.fp += 1
                scores.overall.fp += 1
                scores.false.append((case.name, line, code))
        is_flagged = flagged[case.name] if flagged is not None and case.name in flagged else bool(reported)
        if case.verdict == "leak":
            if is_flagged:
                scores.cases.flagged_leaks += 1
            else:
                scores.cases.missed_leaks += 1
        elif is_flagged:
            scores.cases.flagged_clean += 1
        else:
            scores.cases.silent_clean += 1
    return scores


def lint_zoo(paths: Iterable[Path]) -> dict[str, frozenset[Key]]:
    """torchleak's findings on each file, as (line, code) pairs."""
    from torchleak.engine import lint_source

    return {
        path.name: frozenset((f.line, f.code) for f in lint_source(path.read_text(encoding="utf-8")))
        for path in paths
    }


@dataclass(frozen=True)
class Peer:
    """A peer's recorded results: which of our codes it has an equivalent for, and its findings."""

    tool: str
    version: str
    command: str
    #: A description of each of its findings that maps to one of our codes -> that code.
    mapping: dict[str, str]
    found: dict[str, frozenset[Key]]
    flagged: dict[str, bool]

    @property
    def mapped_codes(self) -> frozenset[str]:
        return frozenset(self.mapping.values())


def load_peer(path: Path = PEER_RESULTS) -> Optional[Peer]:
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, frozenset[Key]] = {}
    flagged: dict[str, bool] = {}
    for name, findings in data["cases"].items():
        found[name] = frozenset((f["line"], f["code"]) for f in findings if f.get("code"))
        flagged[name] = any(f.get("memory", True) for f in findings)
    return Peer(
        tool=data["tool"],
        version=data["version"],
        command=data["command"],
        mapping=dict(data["mapping"]),
        found=found,
        flagged=flagged,
    )


# -- rendering ---------------------------------------------------------------------------------


def pct(value: Optional[float]) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def rule_rows(ours: Scores, peer: Optional[Peer], theirs: Optional[Scores]) -> list[list[str]]:
    rows = []
    for code in sorted(ours.per_rule):
        t = ours.per_rule[code]
        row = [code, str(t.tp), str(t.fp), str(t.fn), pct(t.precision), pct(t.recall)]
        if peer is not None and theirs is not None:
            if code in peer.mapped_codes:
                p = theirs.per_rule.get(code, Tally())
                row += [str(p.tp), str(p.fp), str(p.fn), pct(p.precision), pct(p.recall)]
            else:
                row += ["no equivalent rule", "", "", "", ""]
        rows.append(row)
    o = ours.overall
    row = ["**all**", str(o.tp), str(o.fp), str(o.fn), pct(o.precision), pct(o.recall)]
    if peer is not None and theirs is not None:
        p = theirs.overall
        row += [str(p.tp), str(p.fp), str(p.fn), pct(p.precision), pct(p.recall)]
    rows.append(row)
    return rows


def case_rows(ours: Scores, theirs: Optional[Scores]) -> list[list[str]]:
    tallies = [ours.cases] + ([theirs.cases] if theirs is not None else [])
    labels = [
        ("leak cases flagged (TP)", "flagged_leaks"),
        ("clean cases flagged (FP)", "flagged_clean"),
        ("leak cases missed (FN)", "missed_leaks"),
        ("clean cases silent (TN)", "silent_clean"),
    ]
    rows = [[label] + [str(getattr(t, attr)) for t in tallies] for label, attr in labels]
    rows.append(["precision"] + [pct(t.precision) for t in tallies])
    rows.append(["recall"] + [pct(t.recall) for t in tallies])
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*header), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows])


RULE_HEADER = ["rule", "TP", "FP", "FN", "precision", "recall"]


def peer_header(peer: Peer) -> list[str]:
    name = f"{peer.tool} {peer.version}"
    return [f"{name} TP", "FP", "FN", "precision", "recall"]


def render_text(cases: list[Case], ours: Scores, peer: Optional[Peer], theirs: Optional[Scores]) -> str:
    header = RULE_HEADER + (peer_header(peer) if peer else [])
    leaks = sum(case.verdict == "leak" for case in cases)
    parts = [
        f"{len(cases)} cases ({leaks} leak, {len(cases) - leaks} clean), "
        f"{sum(len(case.expected) for case in cases)} expected findings",
        "",
        text_table(header, [[cell.strip("*") for cell in row] for row in rule_rows(ours, peer, theirs)]),
        "",
        text_table(["cases", "torchleak"] + ([f"{peer.tool} {peer.version}"] if peer else []), case_rows(ours, theirs)),
    ]
    if ours.missed:
        parts += ["", "missed:"] + [f"  tests/zoo/{f}:{line} {code}" for f, line, code in ours.missed]
    if ours.false:
        parts += ["", "false:"] + [f"  tests/zoo/{f}:{line} {code}" for f, line, code in ours.false]
    return "\n".join(parts) + "\n"


def render_doc(cases: list[Case], ours: Scores, peer: Optional[Peer], theirs: Optional[Scores]) -> str:
    leaks = sum(case.verdict == "leak" for case in cases)
    expected = sum(len(case.expected) for case in cases)
    out = [
        "# Accuracy on the leak zoo",
        "",
        f"<!-- Generated by `{COMMAND}`; do not edit. -->",
        "",
        f"This page is generated by `{COMMAND}` (`--check` says whether it is current).",
        f"The leak zoo, [`tests/zoo`](../tests/zoo), holds {len(cases)} small training scripts "
        f"({leaks} that leak, {len(cases) - leaks} clean look-alikes), each modelled on a public "
        "issue, pull request, forum thread or repository file named in its `# Source:` line. A "
        "`# TLKnnn` comment ends every line where a finding is expected "
        f"({expected} in all); the `# Verdict:` line says whether the script really leaks.",
        "",
        "torchleak runs with its default selection (`torchleak.engine.lint_source`). A finding "
        "counts as a true positive when its line and code match a marker.",
    ]
    if peer is not None:
        out += [
            "",
            f"{peer.tool} {peer.version} was run on the same files (`{peer.command}`, recorded in "
            "[`tests/zoo/peer_results.json`](../tests/zoo/peer_results.json) by "
            "`scripts/score_peer.py`). Its findings are mapped to our codes where the two mean "
            "the same thing ("
            + ", ".join(f"{k} ↔ {v}" for k, v in sorted(peer.mapping.items(), key=lambda item: item[1]))
            + "); its other rules (data loading, seeding, convergence) are left out. "
            "It has no rule for the other codes, so its overall recall counts those markers as missed.",
        ]
        unrecorded = [case.name for case in cases if case.name not in peer.found]
        if unrecorded:
            out += [
                "",
                f"{len(unrecorded)} cases were added after its results were recorded and are left "
                "out of its figures: rerun `scripts/score_peer.py`.",
            ]
    header = RULE_HEADER + (peer_header(peer) if peer else [])
    out += ["", "## Per rule", "", table(header, rule_rows(ours, peer, theirs))]
    out += [
        "",
        "## Per case",
        "",
        "A case counts as flagged when the tool reports anything in it"
        + (f" (for {peer.tool}: any memory finding)" if peer else "")
        + ".",
        "",
        table(["", "torchleak"] + ([f"{peer.tool} {peer.version}"] if peer else []), case_rows(ours, theirs)),
    ]
    out += ["", "## What torchleak misses", ""]
    out += [f"- `tests/zoo/{f}:{line}` {code}" for f, line, code in ours.missed] or ["Nothing."]
    out += ["", "## What torchleak reports that is not a leak", ""]
    out += [f"- `tests/zoo/{f}:{line}` {code}" for f, line, code in ours.false] or ["Nothing."]
    return "\n".join(out) + "\n"


def evaluate(zoo: Path = ZOO) -> tuple[list[Case], Scores, Optional[Peer], Optional[Scores]]:
    paths = zoo_files(zoo)
    cases = [read_case(path) for path in paths]
    ours = score(cases, lint_zoo(paths))
    peer = load_peer(zoo / "peer_results.json")
    # a case added after the peer's results were recorded is left out of its figures
    theirs = score([c for c in cases if c.name in peer.found], peer.found, peer.flagged) if peer is not None else None
    return cases, ours, peer, theirs


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="print machine-readable results")
    mode.add_argument("--write-docs", action="store_true", help=f"write {DOC.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help=f"exit 1 if {DOC.relative_to(ROOT)} is stale")
    args = parser.parse_args(argv)

    cases, ours, peer, theirs = evaluate()
    if args.json:
        result: dict[str, object] = {
            "cases": {c.name: {"verdict": c.verdict, "expected": sorted(c.expected)} for c in cases},
            "torchleak": ours.as_dict(),
        }
        if peer is not None and theirs is not None:
            result["peer"] = {"tool": peer.tool, "version": peer.version, **theirs.as_dict()}
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if args.write_docs or args.check:
        doc = render_doc(cases, ours, peer, theirs)
        if args.check:
            current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
            if current != doc:
                print(f"{DOC.relative_to(ROOT)} is stale: run {COMMAND}", file=sys.stderr)
                return 1
            return 0
        DOC.write_text(doc, encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")
        return 0
    sys.stdout.write(render_text(cases, ours, peer, theirs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
