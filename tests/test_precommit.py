"""The real `pre-commit` runs this repository's hook (and the flake8 route) on a scratch git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from conftest import CLEAN, LEAKY, ROOT

#: pre-commit builds a virtualenv and pip-installs the hook repository into it.
INSTALL_TIMEOUT = 480


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=torchleak tests", "-c", "user.email=tests@torchleak.invalid",
         "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", *args],
        cwd=cwd, env=_environment(), check=True, capture_output=True, timeout=60,
    )


def _environment(pre_commit_home: Path | None = None) -> dict[str, str]:
    # Running inside a git hook sets GIT_DIR and friends, which would point git at the wrong repository.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    if pre_commit_home is not None:
        environment["PRE_COMMIT_HOME"] = str(pre_commit_home)
    return environment


def _this_checkout_files() -> list[str]:
    """The files of this working tree (tracked or not, but not ignored), or every file without git."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, env=_environment(), capture_output=True, timeout=60,
    )
    if listed.returncode == 0:
        return [name for name in listed.stdout.decode().split("\0") if name and (ROOT / name).is_file()]
    skip = {".git", "__pycache__", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache", ".hypothesis"}
    return [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.is_file() and not skip.intersection(path.relative_to(ROOT).parts)
    ]


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as a one-commit git repository: try-repo needs .pre-commit-hooks.yaml committed."""
    copy = tmp_path_factory.mktemp("hook-repository")
    for name in _this_checkout_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    _git(copy, "init", "-q")
    _git(copy, "add", "--all")
    _git(copy, "commit", "-q", "-m", "torchleak under test")
    return copy


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private cache, so the first run really installs the hook and later runs reuse that install."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """The user's repository: one leaky and one clean training script, staged."""
    (tmp_path / "leaky.py").write_text(LEAKY)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "gen.py").write_text(LEAKY)
    (tmp_path / "pyproject.toml").write_text('[tool.torchleak]\nexclude = ["generated"]\n')
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "--all")
    return tmp_path


def _pre_commit(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd, env=_environment(home), capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
    )
    print(result.stdout, result.stderr)  # shown by pytest when an assertion below fails
    return result


def test_hook_fails_on_the_leaky_file_and_passes_on_the_clean_one(
    hook_repository: Path, pre_commit_home: Path, target: Path
) -> None:
    # try-repo installs the hook into a fresh store of its own on every run (about 15 s each).
    # generated/gen.py leaks too, but [tool.torchleak] excludes it: pre-commit names it, and the
    # hook's --force-exclude drops it.
    leaky = _pre_commit(target, pre_commit_home, "try-repo", str(hook_repository), "torchleak", "--files", "leaky.py", "generated/gen.py")
    assert leaky.returncode == 1
    assert "torchleak...." in leaky.stdout and "Failed" in leaky.stdout
    reported = [line.replace(" [*] ", " ") for line in leaky.stdout.splitlines() if ": TLK" in line]
    assert reported == [
        "leaky.py:5:5: TLK101 'total += loss' keeps the autograd graph of every iteration alive; "
        "accumulate loss.item() (or loss.detach())"
    ]

    clean = _pre_commit(target, pre_commit_home, "try-repo", str(hook_repository), "torchleak", "--files", "clean.py", "generated/gen.py")
    assert clean.returncode == 0
    assert "torchleak...." in clean.stdout and "Passed" in clean.stdout and "TLK" not in clean.stdout


def test_flake8_route_with_torchleak_as_an_additional_dependency(
    hook_repository: Path, pre_commit_home: Path, target: Path
) -> None:
    """The README's flake8 hook; the dependency is this checkout instead of the published package."""
    (target / ".pre-commit-config.yaml").write_text(
        dedent(
            f"""\
            repos:
            -   repo: local
                hooks:
                -   id: flake8
                    name: flake8
                    entry: flake8
                    args: [--select, TLK]
                    language: python
                    types: [python]
                    additional_dependencies: [flake8, "{hook_repository}"]
            """
        )
    )
    _git(target, "add", "--all")
    leaky = _pre_commit(target, pre_commit_home, "run", "flake8", "--files", "leaky.py", "clean.py")
    assert leaky.returncode == 1
    assert [line.split(": ", 1)[1].split()[0] for line in leaky.stdout.splitlines() if line.startswith("leaky.py:")] == ["TLK101"]
    assert "clean.py:" not in leaky.stdout
    clean = _pre_commit(target, pre_commit_home, "run", "flake8", "--files", "clean.py")
    assert clean.returncode == 0 and "Passed" in clean.stdout


def _readme_yaml() -> list[str]:
    import re

    text = (ROOT / "README.md").read_text()
    section = text.split("## pre-commit", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```yaml\n(.*?)```", section, re.S)


def test_the_readmes_snippets_as_written(pre_commit_home: Path, target: Path) -> None:
    """The README's hook, at the README's rev (a commit of this repository), with `repo` pointed
    at this checkout: Python files only, then with the notebook variant, notebooks too."""
    import json
    import re

    remote, notebooks, local = _readme_yaml()
    rev = re.search(r"rev: ([0-9a-f]{40})", remote)
    assert rev is not None
    known = subprocess.run(["git", "cat-file", "-e", rev.group(1) + "^{commit}"], cwd=ROOT, env=_environment(), capture_output=True)
    if known.returncode != 0:
        pytest.skip("a shallow clone without the README's rev")
    cell = {"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [], "source": LEAKY.splitlines(True)}
    (target / "train.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    config = remote.replace("repo: ../torchleak", f"repo: {ROOT}")
    (target / ".pre-commit-config.yaml").write_text(config)
    _git(target, "add", "--all")
    plain = _pre_commit(target, pre_commit_home, "run", "--all-files")
    assert plain.returncode == 1
    assert [line.split(":")[0] for line in plain.stdout.splitlines() if ": TLK" in line] == ["leaky.py"]
    hook = notebooks.strip("\n")
    (target / ".pre-commit-config.yaml").write_text(config.replace("    -   id: torchleak\n", hook + "\n"))
    _git(target, "add", "--all")
    widened = _pre_commit(target, pre_commit_home, "run", "--all-files")
    assert widened.returncode == 1
    assert sorted(line.split(":")[0] for line in widened.stdout.splitlines() if ": TLK" in line) == ["leaky.py", "train.ipynb"]
    assert "entry: torchleak --force-exclude" in local and "types_or: [python, jupyter]" in local
