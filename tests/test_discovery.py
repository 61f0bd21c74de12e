"""Which files `torchleak DIR` lints: ruff's default exclusions, .gitignore, and what it says
about paths with nothing to lint or that cannot be read; notebooks fixed in place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import LEAKY, ROOT, findings, run_tool


def _git(cwd: Path, *args: str) -> None:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=cwd, env=environment, check=True, capture_output=True, timeout=60)


def _linted(stdout: str) -> set[str]:
    return {line.split(":")[0] for line in findings(stdout)}


def test_gitignore_git_info_exclude_and_ruffs_default_exclusions(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    files = [
        "src/train.py", "src/generated/gen.py", "notes/scratch.py", "logs/run.py", "src/keep/kept.py",
        "build/lib/train.py", "dist/train.py", "node_modules/x/train.py", "lib/site-packages/torchy/train.py",
        "env/lib/train.py", "_build/train.py",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(LEAKY)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a virtualenv under any name
    (tmp_path / ".gitignore").write_text("notes/\n*.log\n")
    (tmp_path / "src" / ".gitignore").write_text("generated/\n")
    (tmp_path / ".git" / "info" / "exclude").write_text("logs/\n")
    result = run_tool("torchleak", ".", cwd=tmp_path)
    assert _linted(result.stdout) == {"./src/train.py", "./src/keep/kept.py"}, result.stdout
    # Walking a subfolder still reads the .gitignore files above it, up to the repository's top.
    assert _linted(run_tool("torchleak", "src", cwd=tmp_path).stdout) == {"src/train.py", "src/keep/kept.py"}
    # A file named on the command line is linted even if ignored (unless --force-exclude)...
    assert _linted(run_tool("torchleak", "notes/scratch.py", cwd=tmp_path).stdout) == {"notes/scratch.py"}
    assert run_tool("torchleak", "--force-exclude", "build/lib/train.py", cwd=tmp_path).stdout == ""
    # ... and --no-respect-gitignore walks into what git ignores.
    everything = run_tool("torchleak", "--no-respect-gitignore", ".", cwd=tmp_path)
    assert "./notes/scratch.py" in _linted(everything.stdout) and "./dist/train.py" not in _linted(everything.stdout)


def test_force_exclude_applies_to_the_stdin_display_name(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.torchleak]\nexclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    name = str(tmp_path / "generated" / "gen.py")
    linted = run_tool("torchleak", "-", "--stdin-display-name", name, stdin=LEAKY, cwd=tmp_path)
    assert "TLK101" in linted.stdout
    skipped = run_tool("torchleak", "--force-exclude", "-", "--stdin-display-name", name, stdin=LEAKY, cwd=tmp_path)
    assert skipped.returncode == 0 and skipped.stdout == ""
    # --fix hands an excluded buffer back unchanged, as ruff does.
    fixed = run_tool("torchleak", "--fix", "--force-exclude", "-", "--stdin-display-name", name, stdin=LEAKY, cwd=tmp_path)
    assert fixed.stdout == LEAKY


def test_a_path_with_nothing_to_lint_says_so(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# docs\n")
    result = run_tool("torchleak", "docs", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr == "torchleak: warning: docs: no Python files or notebooks found\n"


def test_an_unreadable_directory_is_reported_like_an_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "train.py").write_text(LEAKY)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "train.py").write_text(LEAKY)
    os.chmod(tmp_path / "locked", 0o000)
    command = [shutil.which("torchleak") or "torchleak", "."]
    if os.geteuid() == 0:  # root reads anything: drop the capabilities that let it
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    try:
        result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    finally:
        os.chmod(tmp_path / "locked", 0o755)
    assert result.returncode == 1
    assert result.stderr == "./locked: cannot read: Permission denied\n"
    assert _linted(result.stdout) == {"./ok/train.py"}


def _notebook(path: Path) -> dict[str, object]:
    document = {
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# Training"]},
            {
                "cell_type": "code", "execution_count": 1, "id": "b", "metadata": {"tags": ["setup"]},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ready\n"]}],
                "source": ["%matplotlib inline\n", "total = 0\n", "preds = []"],
            },
            {
                "cell_type": "code", "execution_count": 2, "id": "c", "metadata": {}, "outputs": [],
                "source": [
                    "for x, y in loader:\n", "    %time out = model(x)\n", "    loss = criterion(model(x), y)\n",
                    "    loss.backward()\n", "    total += loss\n", "    preds.append(model(x).pow(2))",
                ],
            },
            {"cell_type": "code", "execution_count": 3, "id": "d", "metadata": {}, "outputs": [], "source": ["save(preds)"]},
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return document


def test_fix_and_diff_fix_the_code_cells_of_a_notebook(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    original = _notebook(path)
    before = path.read_text()
    diff = run_tool("torchleak", "--diff", "train.ipynb", cwd=tmp_path)
    assert diff.returncode == 1 and path.read_text() == before
    assert "--- train.ipynb:cell 3\n+++ train.ipynb:cell 3\n" in diff.stdout
    assert "-    total += loss\n+    total += loss.item()\n" in diff.stdout
    fixed = run_tool("torchleak", "--fix", "train.ipynb", cwd=tmp_path)
    # The unsafe TLK102 is left: the summary says so, never "0 remaining".
    assert fixed.stdout.splitlines()[-1] == "Fixed 1 finding (1 remaining; 1 more fixable with --unsafe-fixes)."
    assert "train.ipynb:cell 3:6:5: TLK102" in fixed.stdout and fixed.returncode == 1
    document = json.loads(path.read_text())
    expected = json.loads(json.dumps(original))
    expected["cells"][2]["source"][4] = "    total += loss.item()\n"  # type: ignore[index]
    assert document == expected  # outputs, metadata, magics and the other cells untouched
    assert path.read_text() == json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    unsafe = run_tool("torchleak", "--fix", "--unsafe-fixes", "train.ipynb", cwd=tmp_path)
    assert unsafe.returncode == 0 and unsafe.stdout == "Fixed 1 finding (0 remaining).\n"
    assert "preds.append(model(x).pow(2).detach())" in json.loads(path.read_text())["cells"][2]["source"][5]
    assert run_tool("torchleak", "train.ipynb", cwd=tmp_path).stdout == ""
    nbformat = pytest.importorskip("nbformat")
    nbformat.validate(nbformat.read(str(path), as_version=4))


def test_the_bundled_examples_are_found_from_the_repository() -> None:
    result = run_tool("torchleak", "examples/", cwd=ROOT)
    assert result.returncode == 1 and result.stdout.splitlines()[-1].startswith("Found ")


def _run_as(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a tool with its own HOME and no system git configuration, as a fresh user would."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "XDG_"))}
    environment.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", **env)
    executable = shutil.which(args[0]) or args[0]
    return subprocess.run([executable, *args[1:]], cwd=cwd, env=environment, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("config", "excludes_file", "xdg"),
    [
        (None, ".config/git/ignore", False),  # git's default location, XDG_CONFIG_HOME unset
        (None, "xdg/git/ignore", True),  # $XDG_CONFIG_HOME/git/ignore
        ('[user]\n\tname = x\n[core]\n\texcludesFile = "~/my ignores"  # a comment\n', "my ignores", False),
        ("[core]\n\texcludesfile = ~/global.ignore\n", "global.ignore", True),
    ],
)
def test_the_global_gitignore_is_respected_as_git_reads_it(tmp_path: Path, config: str | None, excludes_file: str, xdg: bool) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    repo.mkdir()
    env = {"XDG_CONFIG_HOME": str(home / "xdg")} if xdg else {}
    if config is not None:
        (home / ".gitconfig").write_text(config)
    (home / excludes_file).parent.mkdir(parents=True, exist_ok=True)
    (home / excludes_file).write_text("scratch/\n*_wip.py\nexperiments/\n")
    for name in ("train.py", "scratch/try.py", "model_wip.py", "experiments/run.py", "experiments/keep/run.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(LEAKY)
    (repo / ".gitignore").write_text("!experiments/\nexperiments/*\n!experiments/keep/\n")  # outranks the global file
    assert _run_as(home, repo, "git", "init", "-q", **env).returncode == 0
    listed = _run_as(home, repo, "git", "ls-files", "--others", "--exclude-standard", **env).stdout.split()
    assert sorted(listed) == [".gitignore", "experiments/keep/run.py", "train.py"]  # git's own answer
    linted = _linted(_run_as(home, repo, "torchleak", ".", **env).stdout)
    assert linted == {"./experiments/keep/run.py", "./train.py"}
    everything = _linted(_run_as(home, repo, "torchleak", "--no-respect-gitignore", ".", **env).stdout)
    assert "./scratch/try.py" in everything and "./model_wip.py" in everything
    # The repository's own configuration outranks the user's.
    (repo / ".git" / "config").write_text((repo / ".git" / "config").read_text() + "[core]\n\texcludesFile = local.ignore\n")
    (repo / "local.ignore").write_text("train.py\n")
    assert _linted(_run_as(home, repo, "torchleak", ".", **env).stdout) == {"./experiments/keep/run.py", "./model_wip.py", "./scratch/try.py"}
    listed = _run_as(home, repo, "git", "ls-files", "--others", "--exclude-standard", **env).stdout.split()
    assert {name for name in listed if name.endswith(".py")} == {"experiments/keep/run.py", "model_wip.py", "scratch/try.py"}
