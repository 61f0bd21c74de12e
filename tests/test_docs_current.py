"""The committed docs/rules pages are exactly what the rule modules render."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_rule_pages_are_current() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/generate_rule_docs.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_explain_prints_the_same_page(capsys: object) -> None:
    from torchleak.cli import main

    assert main(["--explain", "TLK101"]) == 0
    page = (ROOT / "docs" / "rules" / "TLK101.md").read_text()
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    # The page as readers see it: everything but the generator's note to the docs' editors.
    assert "<!--" not in printed
    before, _, after = page.partition("-->")
    assert before.split("<!--")[0].strip() in printed and after.strip() in printed
