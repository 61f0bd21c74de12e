"""[tool.torchleak] in pyproject.toml, found above the linted paths; flags override it; flake8 keeps its own."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from conftest import DEEP, LEAKY, findings, run_tool

#: Leaks only when `mlp` is known to be a model.
CUSTOM_MODEL = "hist = []\nfor x in loader:\n    hist.append(mlp(x))\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in {
        "src/pkg/train.py": LEAKY,
        "src/pkg/custom.py": CUSTOM_MODEL,
        "tests/test_train.py": LEAKY,
        "generated/gen.py": LEAKY,
        "src/pkg/deep.py": DEEP,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _configure(root: Path, table: str) -> None:
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.torchleak]\n' + dedent(table))


def _reported(result_stdout: str) -> set[tuple[str, str]]:
    """(file name, code) of each finding."""
    return {(line.split(":")[0].rsplit("/", 1)[-1], line.split()[1]) for line in findings(result_stdout)}


def test_every_key_applies_and_is_found_from_the_linted_path(project: Path, tmp_path: Path) -> None:
    _configure(
        project,
        """\
        exclude = ["generated"]
        per-file-ignores = {"tests/*" = ["TLK101"]}
        model-names = ["mlp"]
        extend-select = ["TLK900"]
        """,
    )
    # Run from outside the project: the configuration is found by walking up from the path, not the cwd.
    result = run_tool("torchleak", str(project), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert _reported(result.stdout) == {("train.py", "TLK101"), ("custom.py", "TLK102"), ("deep.py", "TLK900")}
    # Without the configuration, each of those keys changes the result.
    isolated = run_tool("torchleak", "--isolated", str(project), cwd=tmp_path)
    assert _reported(isolated.stdout) == {("train.py", "TLK101"), ("test_train.py", "TLK101"), ("gen.py", "TLK101")}


def test_nearest_pyproject_with_the_table_wins_and_others_are_skipped(project: Path) -> None:
    _configure(project, 'ignore = ["TLK101"]\n')
    # A pyproject.toml without [tool.torchleak] in between is passed over, as ruff does.
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert run_tool("torchleak", str(project / "src" / "pkg" / "train.py")).stdout == ""
    # A nearer one with the table is the one that counts.
    _configure(project / "src", 'select = ["TLK1"]\n')
    assert _reported(run_tool("torchleak", str(project / "src" / "pkg" / "train.py")).stdout) == {("train.py", "TLK101")}


def test_command_line_flags_replace_the_configured_key(project: Path) -> None:
    _configure(project, 'ignore = ["TLK101"]\nselect = ["TLK2"]\nmodel-names = ["mlp"]\n')
    path = str(project / "src" / "pkg")
    assert run_tool("torchleak", path).stdout == ""
    assert _reported(run_tool("torchleak", "--select", "TLK1", path).stdout) == {("custom.py", "TLK102")}
    assert _reported(run_tool("torchleak", "--select", "TLK1", "--ignore", "TLK102", path).stdout) == {("train.py", "TLK101")}
    assert run_tool("torchleak", "--select", "TLK1", "--model-names", "other", path).stdout == ""


def test_per_file_ignores_and_exclude_flags(project: Path) -> None:
    result = run_tool("torchleak", "--per-file-ignores", "tests/*:TLK101 custom.py:TLK", "--exclude", "gen*", str(project), cwd=project)
    assert _reported(result.stdout) == {("train.py", "TLK101")}


def test_force_exclude_applies_exclusions_to_named_files(project: Path) -> None:
    _configure(project, 'exclude = ["generated"]\n')
    named = str(project / "generated" / "gen.py")
    assert "TLK101" in run_tool("torchleak", named).stdout  # a file named explicitly is linted
    forced = run_tool("torchleak", "--force-exclude", named)
    assert forced.returncode == 0 and forced.stdout == ""


def test_explicit_config_file_and_stdin(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('[tool.torchleak]\nmodel-names = ["mlp"]\n')
    assert "TLK102" in run_tool("torchleak", "--config", str(other), "-", stdin=CUSTOM_MODEL).stdout
    # stdin is configured from the working directory (or from --stdin-display-name's folder).
    _configure(project, 'model-names = ["mlp"]\n')
    assert "TLK102" in run_tool("torchleak", "-", stdin=CUSTOM_MODEL, cwd=project).stdout
    named = run_tool("torchleak", "-", "--stdin-display-name", str(project / "src" / "x.py"), stdin=CUSTOM_MODEL, cwd=tmp_path)
    assert "TLK102" in named.stdout


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ('selct = ["TLK1"]\n', "unknown key 'selct'"),
        ('select = ["E501"]\n', "'E501' matches no torchleak code"),
        ('select = "TLK1"\n', "select must be a list of strings"),
        ('per-file-ignores = ["tests/*"]\n', "per-file-ignores must map glob patterns to lists of codes"),
        ("select = [\n", "cannot read"),
    ],
)
def test_invalid_configuration_is_a_usage_error(project: Path, table: str, complaint: str) -> None:
    _configure(project, table)
    result = run_tool("torchleak", str(project))
    assert result.returncode == 2 and result.stdout == ""
    assert complaint in result.stderr and "Traceback" not in result.stderr


def test_flake8_reads_the_pyproject_table_and_its_own_options_win(project: Path) -> None:
    """One configuration: under flake8 the closest [tool.torchleak] applies as in the CLI, and
    an option given to flake8 replaces the key of the same name."""
    _configure(project, 'ignore = ["TLK101"]\nmodel-names = ["mlp"]\nexclude = ["generated"]\n')
    both = {("custom.py", "TLK102")}
    assert _reported(run_tool("torchleak", ".", cwd=project).stdout) == both
    assert _reported(run_tool("flake8", "--select", "TLK", ".", cwd=project).stdout) == both
    # flake8's own options win: --torchleak-model-names replaces model-names, --extend-ignore replaces ignore.
    assert _reported(run_tool("flake8", "--select", "TLK", "--torchleak-model-names", "other", "src", cwd=project).stdout) == set()
    assert _reported(run_tool("flake8", "--select", "TLK", "--extend-ignore", "TLK102", "src", cwd=project).stdout) == {
        ("train.py", "TLK101")
    }
    (project / ".flake8").write_text("[flake8]\nselect = TLK\nper-file-ignores =\n    src/*: TLK102\n")
    assert _reported(run_tool("flake8", "src", cwd=project).stdout) == set()
    # --isolated ignores the table too.
    isolated = run_tool("flake8", "--isolated", "--select", "TLK", "src", cwd=project)
    assert _reported(isolated.stdout) == {("train.py", "TLK101")}


def test_the_closest_pyproject_applies_to_each_file(tmp_path: Path) -> None:
    """A monorepo: each subproject keeps its table whatever files are linted together, in the
    CLI (one run over both, or the files pre-commit names) and under flake8."""
    for name, table in (("a", 'model-names = ["mlp"]\n'), ("b", 'ignore = ["TLK101"]\n')):
        (tmp_path / name).mkdir()
        _configure(tmp_path / name, table)
        (tmp_path / name / "train.py").write_text(LEAKY + CUSTOM_MODEL)
    expected = {("a/train.py", "TLK101"), ("a/train.py", "TLK102")}
    for paths in (["."], ["a/train.py", "b/train.py"], ["b/train.py", "a/train.py"]):
        for tool in (("torchleak",), ("flake8", "--select", "TLK")):
            result = run_tool(*tool, *paths, cwd=tmp_path)
            got = {(line.split(":")[0].lstrip("./"), line.split()[1]) for line in findings(result.stdout)}
            assert got == expected, (tool, paths, result.stdout, result.stderr)
