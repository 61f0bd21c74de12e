"""The README says only what is true: its commands run from the repository, its pre-commit
snippets are the ones tests/test_precommit.py runs, its leakcheck example passes, and a step
that raises fails in one line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_ci_runs_the_readmes_test_command() -> None:
    quickstart = _blocks("sh")[0]
    commands = [line for line in quickstart.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2 and "torchleak examples/" in commands[0] and "pytest" in commands[1]
    assert "--index-url https://download.pytorch.org/whl/cpu" in commands[1]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_no_invented_urls_machine_paths_or_tracker_numbers() -> None:
    pages = sorted(path for path in (ROOT / "docs").rglob("*") if path.suffix in (".md", ".json"))
    texts = {str(path.relative_to(ROOT)): path.read_text() for path in [ROOT / "README.md", *pages]}
    texts["docs.py"] = (ROOT / "src" / "torchleak" / "docs.py").read_text()
    for name, text in texts.items():
        assert "github.com/torchleak" not in text, name
        assert not re.search(r"/tmp/|/home/|/root/|/work/", text), name
        assert not re.search(r"\bissues? #?\d+|\(#\d+\)", text), name


def test_the_pre_commit_rev_is_a_commit_of_this_repository() -> None:
    rev = re.search(r"rev: ([0-9a-f]{40})", README)
    assert rev is not None
    known = subprocess.run(["git", "cat-file", "-e", rev.group(1) + "^{commit}"], cwd=ROOT, capture_output=True)
    if known.returncode != 0:
        pytest.skip("a shallow clone without that commit")
    hooks = subprocess.run(["git", "show", f"{rev.group(1)}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True, text=True)
    assert "types_or: [python]" in hooks.stdout


def test_the_leakcheck_example_passes_and_a_raising_step_fails_in_one_line(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    example = next(block for block in _blocks("python") if "def test_train_step_does_not_leak(leakcheck)" in block)
    (tmp_path / "test_example.py").write_text(example)
    (tmp_path / "test_raises.py").write_text(
        "def test_raising(leakcheck):\n"
        "    calls = []\n"
        "    def step():\n"
        "        calls.append(1)\n"
        "        if len(calls) == 3:\n"
        "            raise RuntimeError('boom')\n"
        "    leakcheck(step, iters=5)\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    output = result.stdout
    assert "1 failed, 1 passed" in output, output
    assert "leakcheck: the step raised at iteration 3 (counting the 2 warm-up): RuntimeError: boom" in output
    assert "Traceback" not in output and "runtime.py" not in output


def test_the_benchmark_writes_no_machine_paths_into_its_page(tmp_path: Path) -> None:
    """scripts/benchmark.py --write renders docs/performance.md: run it for real (row b on a
    one-file corpus, the shape whose command once named the file by its temporary path)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train_step.py").write_text((ROOT / "examples" / "leaky_training.py").read_text())
    page = tmp_path / "performance.md"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--corpus", str(corpus), "--only", "b",
         "--no-create-baseline", "--peers-venv", str(tmp_path / "no-peers"), "--jobs", "1", "--write", "--output", str(page)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert "- b: `torchleak --jobs 1 train_step.py`" in text
    assert str(tmp_path) not in text and not re.search(r"/tmp/|/home/|/root/|/work/", text), text
