from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run an installed console tool (flake8, torchleak) as users do, in a subprocess."""
    executable = shutil.which(args[0]) or args[0]
    return subprocess.run(
        [executable, *args[1:]], input=stdin, capture_output=True, text=True, cwd=cwd or ROOT, timeout=120
    )


@pytest.fixture
def python() -> str:
    return sys.executable
