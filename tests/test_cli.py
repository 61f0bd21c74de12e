"""The torchleak command: discovery, formats, exit codes, unreadable and odd files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from textwrap import dedent

import pytest

from conftest import ROOT, findings, run_tool

LEAKY = dedent(
    """\
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        total += loss
    """
)
CLEAN = LEAKY.replace("total += loss", "total += loss.item()")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "leaky.py").write_text(LEAKY)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "vendored.py").write_text(LEAKY)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "generated.py").write_text(LEAKY)
    return tmp_path


def test_directories_are_walked_with_excludes(project: Path) -> None:
    result = run_tool("torchleak", str(project), "--exclude", "build")
    assert result.returncode == 1
    assert findings(result.stdout) == [
        f"{project}/pkg/leaky.py:5:5: TLK101 'total += loss' keeps the autograd graph of every iteration "
        "alive; accumulate loss.item() (or loss.detach())"
    ]


def test_exit_codes(project: Path) -> None:
    assert run_tool("torchleak", str(project / "pkg" / "clean.py")).returncode == 0
    assert run_tool("torchleak", str(project / "pkg" / "leaky.py")).returncode == 1
    assert run_tool("torchleak", "--exit-zero", str(project / "pkg" / "leaky.py")).returncode == 0
    assert run_tool("torchleak", "--format", "xml", "x.py").returncode == 2
    assert run_tool("torchleak", "--explain", "TLK998").returncode == 2


def test_select_and_ignore(project: Path) -> None:
    path = str(project / "pkg" / "leaky.py")
    assert run_tool("torchleak", "--ignore", "TLK101", path).returncode == 0
    assert run_tool("torchleak", "--select", "TLK2", path).stdout == ""
    assert "TLK101" in run_tool("torchleak", "--select", "TLK101", path).stdout


def test_json_format(project: Path) -> None:
    (project / "pkg" / "broken.py").write_text("def f(:\n")
    result = run_tool("torchleak", "--format", "json", str(project / "pkg"))
    document = json.loads(result.stdout)
    assert document["version"] == 1
    assert [(f["path"].rsplit("/", 1)[-1], f["line"], f["column"], f["code"], f["name"]) for f in document["findings"]] == [
        ("leaky.py", 5, 5, "TLK101", "accumulated-loss")
    ]
    assert document["errors"][0]["path"].endswith("broken.py")
    assert document["errors"][0]["message"].startswith("syntax error")


def test_stdin(project: Path) -> None:
    result = run_tool("torchleak", "-", "--stdin-display-name", "buffer.py", stdin=LEAKY)
    assert result.stdout.startswith("buffer.py:5:5: TLK101")


def test_unreadable_undecodable_and_syntax_errors_do_not_stop_the_run(project: Path) -> None:
    bad = project / "pkg"
    (bad / "invalid_utf8.py").write_bytes(b"x = '\xff\xfe'\n")
    (bad / "syntax.py").write_text("for x in loader:\n    total += (\n")
    os.symlink(bad / "missing.py", bad / "dangling.py")
    result = run_tool("torchleak", str(bad))
    assert result.returncode == 1
    assert "TLK101" in result.stdout  # leaky.py is still linted
    assert "invalid_utf8.py: cannot decode" in result.stderr
    assert "dangling.py: cannot read" in result.stderr
    assert "syntax.py:3:1: TLK999 syntax error" in result.stdout or "syntax.py:2:" in result.stdout
    assert "Traceback" not in result.stderr


def test_encodings(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + LEAKY.encode())
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + LEAKY.encode())
    result = run_tool("torchleak", str(latin), str(bom))
    assert f"{latin}:7:5: TLK101" in result.stdout
    assert f"{bom}:5:5: TLK101" in result.stdout


def test_output_is_the_same_for_any_number_of_jobs(tmp_path: Path) -> None:
    for index in range(40):
        (tmp_path / f"m{index:02d}.py").write_text(LEAKY if index % 3 == 0 else CLEAN)
    serial = run_tool("torchleak", "-j", "1", str(tmp_path))
    parallel = run_tool("torchleak", "-j", "2", str(tmp_path))
    assert serial.stdout == parallel.stdout
    assert len(findings(serial.stdout)) == 14
    assert serial.stderr == ""  # no progress bar when output is not a terminal


def test_list_rules_and_explain() -> None:
    listing = run_tool("torchleak", "--list-rules").stdout
    assert [line.split()[0] for line in listing.splitlines()] == [
        "TLK101", "TLK102", "TLK103", "TLK201", "TLK202", "TLK301", "TLK302", "TLK900", "TLK999"
    ]
    assert "## Why is this bad?" in run_tool("torchleak", "--explain", "tlk202").stdout


def test_python_dash_m() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "torchleak", "--list-rules"], capture_output=True, text=True)
    assert result.returncode == 0 and "TLK101" in result.stdout


def test_bundled_examples_report_exactly_their_markers() -> None:
    """`flake8 --select TLK examples/` and the CLI report the marked lines and nothing else."""
    expected = set()
    for path in sorted((ROOT / "examples").glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if "  # TLK" in line:
                expected.add((f"examples/{path.name}", number, line.rsplit("# ", 1)[1].strip()))
    assert len(expected) == 7  # (the carried state TLK202's retain papers over is reported at the retain alone)
    for tool in (("torchleak", "examples/"), ("flake8", "--select", "TLK", "examples/")):
        result = run_tool(*tool)
        found = {(p, int(line), rest.split()[0]) for p, line, _, rest in (x.split(":", 3) for x in findings(result.stdout))}
        assert found == expected, tool


def _stopped_on_one_file(arguments):  # a worker the system kills in the middle of a file
    path, _job = arguments
    if path.endswith("f07.py"):
        os._exit(1)
    from torchleak import cli

    return cli.lint_path(*arguments)


def test_a_worker_stopped_by_the_system_does_not_stop_the_run(tmp_path, monkeypatch, capsys):
    """A worker killed (out of memory, a signal) breaks the process pool: the files it had not
    reported are linted in the main process, in order, with a note; no traceback."""
    import multiprocessing

    from torchleak import cli

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the stand-in worker reaches the pool only when workers are forked")
    body = "total = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    total += loss\n"
    for i in range(cli.PARALLEL_THRESHOLD + 4):
        (tmp_path / f"f{i:02d}.py").write_text(body)
    files = sorted(str(p) for p in tmp_path.glob("*.py"))
    monkeypatch.setattr(cli, "_lint_in_worker", _stopped_on_one_file)
    code = cli.main(["--no-cache", "--jobs", "2", *files])
    out, err = capsys.readouterr()
    assert code == 1
    assert "a worker process was stopped" in err and "Traceback" not in err
    reported = [line.split(":", 1)[0] for line in out.splitlines() if ": TLK101 " in line]
    assert reported == files  # every file, the one the worker died on included, in order
