"""Real-world-shaped training scripts: each reports exactly the lines marked ``# TLKnnn``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchleak.engine import lint_source

SCRIPTS = sorted((Path(__file__).parent / "realistic").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.stem)
def test_script_reports_exactly_its_marked_lines(path: Path) -> None:
    source = path.read_text()
    expected = {
        (number, match.group(1))
        for number, line in enumerate(source.splitlines(), start=1)
        for match in re.finditer(r"#\s*(TLK\d{3})\b", line)
    }
    assert {(f.line, f.code) for f in lint_source(source)} == expected


def test_there_are_clean_and_leaky_scripts() -> None:
    marked = [path for path in SCRIPTS if "# TLK" in path.read_text()]
    assert 3 <= len(marked) < len(SCRIPTS)
