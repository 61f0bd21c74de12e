from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The smallest leaky training loop: TLK101 on line 5, column 5; CLEAN is its fix.
LEAKY = """\
total = 0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    total += loss
"""
CLEAN = LEAKY.replace("total += loss", "total += loss.item()")
LEAKY_MESSAGE = "'total += loss' keeps the autograd graph of every iteration alive; accumulate loss.item() (or loss.detach())"
#: Valid Python nested deeper than the analysis walks: reported as not analysed (TLK900).
DEEP = "for x in loader:\n    y = " + "f(" * 190 + "1" + ")" * 190 + "\n"


def run_tool(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run an installed console tool (flake8, torchleak) as users do, in a subprocess."""
    executable = shutil.which(args[0]) or args[0]
    return subprocess.run(
        [executable, *args[1:]], input=stdin, capture_output=True, text=True, cwd=cwd or ROOT, timeout=120
    )


def findings(stdout: str) -> list[str]:
    """The finding lines of the text format: without the closing summary and ruff's ``[*]``
    fixable marker (whether a fix is offered is tested on its own)."""
    return [line.replace(" [*] ", " ", 1) for line in stdout.splitlines() if not line.startswith("Found ")]


@pytest.fixture
def python() -> str:
    return sys.executable
