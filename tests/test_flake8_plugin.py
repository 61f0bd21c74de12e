"""The real flake8 executable with the installed plugin, as CI, pre-commit and editors run it."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from conftest import run_tool

LEAKY = dedent(
    """\
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        total += loss
    """
)


def _write(tmp_path: Path, text: str, name: str = "train.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_flake8_reports_with_flake8_columns(tmp_path: Path) -> None:
    path = _write(tmp_path, LEAKY)
    result = run_tool("flake8", "--select", "TLK", str(path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:5:5: TLK101 'total += loss' keeps the autograd graph of every iteration alive; "
        "accumulate loss.item() (or loss.detach())"
    ]


def test_flake8_stdin_as_editors_use_it(tmp_path: Path) -> None:
    result = run_tool("flake8", "--select", "TLK", "-", "--stdin-display-name", "buffer.py", stdin=LEAKY)
    assert result.stdout.startswith("buffer.py:5:5: TLK101 ")


def test_noqa_extend_ignore_and_per_file_ignores(tmp_path: Path) -> None:
    path = _write(tmp_path, LEAKY.replace("total += loss", "total += loss  # noqa: TLK101"))
    assert run_tool("flake8", "--select", "TLK", str(path)).stdout == ""
    plain = _write(tmp_path, LEAKY, "plain.py")
    assert run_tool("flake8", "--select", "TLK,E", "--extend-ignore", "TLK101", str(plain)).stdout == ""
    assert run_tool("flake8", "--select", "TLK", "--per-file-ignores", "plain.py:TLK", str(plain)).stdout == ""


def test_default_run_includes_tlk_but_not_the_notice(tmp_path: Path) -> None:
    deep = _write(tmp_path, "for x in loader:\n    y = " + "f(" * 190 + "1" + ")" * 190 + "\n")
    result = run_tool("flake8", "--select", "TLK", str(deep))
    assert result.returncode == 0 and result.stdout == "" and "Traceback" not in result.stderr
    noticed = run_tool("flake8", "--select", "TLK,TLK900", str(deep))
    assert "TLK900 not analysed: nested more than" in noticed.stdout
    plain = _write(tmp_path, LEAKY, "plain.py")
    assert "TLK101" in run_tool("flake8", "--isolated", str(plain)).stdout


def test_syntax_errors_are_left_to_flake8(tmp_path: Path) -> None:
    path = _write(tmp_path, "def f(:\n    pass\n")
    result = run_tool("flake8", str(path))
    assert "E999" in result.stdout and "Traceback" not in result.stderr


def test_parallel_flake8(tmp_path: Path) -> None:
    for index in range(4):
        _write(tmp_path, LEAKY, f"train_{index}.py")
    result = run_tool("flake8", "-j", "2", "--select", "TLK", str(tmp_path))
    assert sorted(line.split(":")[0] for line in result.stdout.splitlines()) == sorted(
        str(tmp_path / f"train_{index}.py") for index in range(4)
    )


def test_flake8_options_from_config(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text("[flake8]\ntorchleak-model-names = mlp\n")
    path = _write(tmp_path, "hist = []\nfor x in loader:\n    hist.append(mlp(x))\n")
    assert "TLK102" in run_tool("flake8", "--select", "TLK", "train.py", cwd=tmp_path).stdout
