"""The analysis tests libcst nodes by exact type (``type(node) is cst.Name``): libcst's classes
are ABCs, whose ``isinstance`` is slow. That is the same test only for classes nothing derives
from; this checks that the installed libcst still has no subclass of any class so tested."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

ANALYSIS = Path(__file__).resolve().parents[1] / "src" / "torchleak" / "analysis"
EXACT = re.compile(r"\btype\([^()]+\) is (?:not )?cst\.(\w+)")


def test_classes_tested_by_exact_type_have_no_subclasses() -> None:
    tested = {name for path in ANALYSIS.glob("*.py") for name in EXACT.findall(path.read_text(encoding="utf-8"))}
    assert len(tested) > 20
    derived = {name: [sub.__name__ for sub in getattr(cst, name).__subclasses__()] for name in tested}
    assert {name: subs for name, subs in derived.items() if subs} == {}
