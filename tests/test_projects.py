"""Multi-file projects (tests/projects/*), linted through the real ``torchleak`` and ``flake8``
executables: both must report the same findings, and exactly the ones the projects' files
mark.

Markers, written in the project files at the end of the line a finding belongs to:
``# expect: TLK101`` (several codes: ``TLK103, TLK202``), optionally followed by ``(name.py)``
when the message must name the helper's module. ``# expect-after-edit: ...`` applies after
each ``X.py.edited`` replaced ``X.py`` (a second run, with the cache the first run wrote).
Every line without a marker must stay silent: the clean look-alikes are next to the leaks.
Held-out projects also record what the analysis gets wrong today, so that a change either way
shows: ``# known-miss: TLK201`` marks a real leak it does not report yet (it must stay
unreported until the marker becomes ``expect``), ``# known-false: TLK101`` a finding it
gives on a clean line (it must keep giving it until the cause is fixed).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import findings, run_tool

PROJECTS_DIR = Path(__file__).parent / "projects"
PROJECTS = sorted(path for path in PROJECTS_DIR.iterdir() if path.is_dir())
MARKER = re.compile(r"#\s*expect(?P<after>-after-edit)?:\s*(?P<codes>TLK\d{3}(?:\s*,\s*TLK\d{3})*)(?:\s*\((?P<note>[^)]*)\))?")
KNOWN = re.compile(r"#\s*known-(?P<kind>miss|false):\s*(?P<codes>TLK\d{3}(?:\s*,\s*TLK\d{3})*)")
FINDING = re.compile(r"^(?:\./)?(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<code>TLK\d{3}) (?P<message>.*)$")

Expected = dict[tuple[str, int, str], str]


def expectations(project: Path, *, after_edit: bool) -> Expected:
    """(path, line, code) -> a module name the message must mention ("" for none)."""
    expected: Expected = {}
    for file in sorted(project.rglob("*.py")):
        relative = file.relative_to(project).as_posix()
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            match = MARKER.search(line)
            if match is None or bool(match.group("after")) != after_edit:
                continue
            note = match.group("note") or ""
            module = note if note.endswith(".py") and " " not in note else ""
            for code in re.split(r"\s*,\s*", match.group("codes")):
                expected[(relative, number, code)] = module
    return expected


def known(project: Path, kind: str) -> set[tuple[str, int, str]]:
    """(path, line, code) of the ``known-miss`` or ``known-false`` markers (first run only)."""
    marked: set[tuple[str, int, str]] = set()
    for file in sorted(project.rglob("*.py")):
        relative = file.relative_to(project).as_posix()
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            for match in KNOWN.finditer(line):  # (a line may hold a miss and a finding of another code)
                if match.group("kind") == kind:
                    marked.update((relative, number, code) for code in re.split(r"\s*,\s*", match.group("codes")))
    return marked


def lint(project: Path) -> tuple[list[str], list[str]]:
    """The finding lines of the command and of flake8, each sorted."""
    command = run_tool("torchleak", "--isolated", ".", cwd=project)
    assert command.returncode in (0, 1), command.stderr
    plugin = run_tool("flake8", "--isolated", "--select", "TLK", ".", cwd=project)
    assert plugin.returncode in (0, 1), plugin.stderr
    return sorted(findings(command.stdout)), sorted(plugin.stdout.splitlines())


def check(project: Path, expected: Expected, known_false: frozenset[tuple[str, int, str]] = frozenset()) -> None:
    command, plugin = lint(project)
    assert command == plugin, "the command and flake8 disagree"
    found: dict[tuple[str, int, str], str] = {}
    for line in command:
        match = FINDING.match(line)
        assert match is not None, line
        found[(match["path"], int(match["line"]), match["code"])] = match["message"]
    assert sorted(found) == sorted(set(expected) | known_false), "\n".join(command)
    for key, module in expected.items():
        assert module in found[key], f"{key}: the message should name {module}: {found[key]}"


@pytest.fixture
def copy(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of the project, so that its cache and edits stay out of the repository."""
    target = tmp_path / request.param.name
    shutil.copytree(request.param, target, ignore=shutil.ignore_patterns(".torchleak_cache", "__pycache__"))
    return target


@pytest.mark.parametrize("copy", PROJECTS, ids=[project.name for project in PROJECTS], indirect=True)
def test_project(copy: Path) -> None:
    # A known miss stays unreported (check() fails on any finding not expected or known false).
    check(copy, expectations(copy, after_edit=False), frozenset(known(copy, "false")))
    # The project's root (its pyproject.toml or setup.py, else the working directory) holds it.
    cache = copy / ".torchleak_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list(cache.rglob("*.json")), "no module summary was cached"
    assert not list(cache.rglob("*.tmp")), "a temporary file was left behind"
    edited = sorted(copy.rglob("*.py.edited"))
    if not edited:
        return
    # The second run reads the first run's cache; the edit must invalidate what depends on it.
    for file in edited:
        shutil.copyfile(file, file.with_suffix(""))
    check(copy, expectations(copy, after_edit=True))


def test_projects_cover_the_shapes() -> None:
    """At least eight projects, each citing the public repository its layout follows, with
    expected findings (or leaks recorded as still missed) and an edited helper among them."""
    assert len(PROJECTS) >= 8
    for project in PROJECTS:
        text = "\n".join(file.read_text() for file in project.rglob("*.py"))
        assert "Modelled on" in text or "modelled on" in text, project.name
        # (a held-out project whose every leak is still missed records them as known misses)
        assert expectations(project, after_edit=False) or expectations(project, after_edit=True) or known(project, "miss"), project.name
    assert any(project.rglob("*.py.edited") for project in PROJECTS)


def test_findings_need_the_project_index(tmp_path: Path) -> None:
    """The same file read alone (stdin: no place on disk, no imports followed) misses the leak
    that lives in a sibling module."""
    project = tmp_path / "imagenet_flat"
    shutil.copytree(PROJECTS_DIR / "imagenet_flat", project)
    alone = run_tool("torchleak", "--isolated", "-", stdin=(project / "main.py").read_text(), cwd=project)
    assert alone.returncode == 0, alone.stdout
    followed = run_tool("torchleak", "--isolated", "-", "--stdin-display-name", "main.py", stdin=(project / "main.py").read_text(), cwd=project)
    assert "TLK101" in followed.stdout and "utils.py" in followed.stdout


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "imagenet_flat"
    shutil.copytree(PROJECTS_DIR / "imagenet_flat", project)
    result = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=project)
    assert "TLK101" in result.stdout
    assert not (project / ".torchleak_cache").exists()
