"""What flake8 and ruff users expect of the `torchleak` command, through the real executable."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEEP, LEAKY, LEAKY_MESSAGE, ROOT, findings, run_tool

#: TLK102 with only an unsafe fix (the stored value is a model's output).
#: A tensor kept in a list that leaves the module (saved): its fix is unsafe.
UNSAFE = "preds = []\nfor x in loader:\n    preds.append(model(x).pow(2))\nsave(preds)\n"


def _env_run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env)
    executable = shutil.which(args[0]) or args[0]
    return subprocess.run([executable, *args[1:]], capture_output=True, text=True, cwd=cwd, env=environment, timeout=120)


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(LEAKY)
    return tmp_path


def test_no_path_lints_the_working_directory(leaky: Path) -> None:
    result = run_tool("torchleak", cwd=leaky)
    assert result.returncode == 1
    assert findings(result.stdout) == [f"./train.py:5:5: TLK101 {LEAKY_MESSAGE}"]


def test_summary_line_and_fixable_marker(leaky: Path) -> None:
    result = run_tool("torchleak", "train.py", cwd=leaky)
    assert result.stdout.splitlines() == [
        f"train.py:5:5: TLK101 [*] {LEAKY_MESSAGE}",
        "Found 1 finding (1 fixable with --fix).",
    ]
    (leaky / "eval.py").write_text(UNSAFE)
    both = run_tool("torchleak", "train.py", "eval.py", cwd=leaky)
    assert both.stdout.splitlines()[-1] == "Found 2 findings (1 fixable with --fix, 1 more with --unsafe-fixes)."
    assert " TLK102 '" in both.stdout  # an unsafe fix is not marked without --unsafe-fixes
    # --unsafe-fixes alone lists what it would make fixable.
    listed = run_tool("torchleak", "--unsafe-fixes", "train.py", "eval.py", cwd=leaky)
    assert listed.stdout.splitlines()[-1] == "Found 2 findings (2 fixable with --fix --unsafe-fixes)."
    assert " TLK102 [*] " in listed.stdout
    assert (leaky / "eval.py").read_text() == UNSAFE  # and changes nothing
    quiet = run_tool("torchleak", "-q", "train.py", cwd=leaky)
    assert quiet.stdout.splitlines() == [f"train.py:5:5: TLK101 [*] {LEAKY_MESSAGE}"]
    assert run_tool("torchleak", "--quiet", str(ROOT / "examples" / "clean_training.py")).stdout == ""


def test_colour_follows_the_terminal_no_color_and_force_color(leaky: Path) -> None:
    assert "\x1b[" not in _env_run("torchleak", "train.py", cwd=leaky).stdout  # a pipe
    forced = _env_run("torchleak", "train.py", cwd=leaky, FORCE_COLOR="1")
    assert "\x1b[1;31mTLK101\x1b[0m" in forced.stdout and "\x1b[1mtrain.py\x1b[0m" in forced.stdout
    assert "\x1b[" not in _env_run("torchleak", "train.py", cwd=leaky, FORCE_COLOR="1", NO_COLOR="1").stdout
    # A real terminal: colour by default, none with NO_COLOR.
    for env, coloured in (({}, True), ({"NO_COLOR": "1"}, False)):
        primary, secondary = pty.openpty()
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        environment.update(env, TERM="xterm")
        process = subprocess.Popen(
            [shutil.which("torchleak") or "torchleak", "train.py"], cwd=leaky, stdout=secondary, stderr=subprocess.DEVNULL, env=environment
        )
        os.close(secondary)
        output = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        process.wait(timeout=60)
        os.close(primary)
        assert (b"\x1b[1;31mTLK101" in output) is coloured, output


def test_statistics_show_source_and_output_file(leaky: Path) -> None:
    (leaky / "eval.py").write_text(UNSAFE + UNSAFE.replace("preds", "outs"))
    statistics = run_tool("torchleak", "--statistics", ".", cwd=leaky)
    assert statistics.stdout.splitlines()[:2] == ["2\tTLK102\t    held-across-iterations", "1\tTLK101\t[*] accumulated-loss"]
    as_json = json.loads(run_tool("torchleak", "--statistics", "--format", "json", ".", cwd=leaky).stdout)
    assert as_json[0] == {"code": "TLK102", "name": "held-across-iterations", "count": 2, "fixable": 0}
    source = run_tool("torchleak", "--show-source", "train.py", cwd=leaky)
    assert source.stdout.splitlines()[:3] == [f"train.py:5:5: TLK101 [*] {LEAKY_MESSAGE}", "    total += loss", "    ^"]
    written = run_tool("torchleak", "--output-file", "report.txt", "train.py", cwd=leaky)
    assert written.returncode == 1 and written.stdout == ""
    assert (leaky / "report.txt").read_text().startswith(f"train.py:5:5: TLK101 [*] {LEAKY_MESSAGE}\n")


def test_format_is_honoured_with_fix_and_diff(leaky: Path) -> None:
    (leaky / "eval.py").write_text(UNSAFE)
    result = run_tool("torchleak", "--fix", "--format", "json", "train.py", "eval.py", cwd=leaky)
    # As ruff: stdout is one JSON document of the findings left, each with the fix still offered.
    document = json.loads(result.stdout)
    assert [(f["path"], f["code"], f["fix"]["safety"]) for f in document["findings"]] == [("eval.py", "TLK102", "unsafe")]
    assert result.returncode == 1 and result.stderr == "Fixed 1 finding (1 remaining; 1 more fixable with --unsafe-fixes).\n"
    assert "total += loss.item()" in (leaky / "train.py").read_text()
    sarif = json.loads(run_tool("torchleak", "--fix", "--format", "sarif", "eval.py", cwd=leaky).stdout)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TLK102"]
    github = run_tool("torchleak", "--fix", "--format", "github", "eval.py", cwd=leaky)
    assert github.stdout.startswith("::warning file=eval.py,line=3,col=5,title=TLK102::")
    statistics = run_tool("torchleak", "--fix", "--statistics", "eval.py", cwd=leaky)
    assert statistics.stdout.splitlines() == ["1\tTLK102\t    held-across-iterations", "Fixed 0 findings (1 remaining; 1 more fixable with --unsafe-fixes)."]
    counted = run_tool("torchleak", "--fix", "--statistics", "--format", "json", "eval.py", cwd=leaky)
    assert json.loads(counted.stdout) == [{"code": "TLK102", "name": "held-across-iterations", "count": 1, "fixable": 0}]
    source = run_tool("torchleak", "--fix", "--show-source", "eval.py", cwd=leaky)
    assert source.stdout.splitlines()[1:3] == ["    preds.append(model(x).pow(2))", "    ^"]
    # --diff prints the diff whatever the format (as ruff), and writes nothing.
    (leaky / "train.py").write_text(LEAKY)
    for output_format in ("json", "sarif", "github", "text"):
        diff = run_tool("torchleak", "--diff", "--format", output_format, "train.py", "eval.py", cwd=leaky)
        assert diff.returncode == 1, diff.stderr
        assert diff.stdout.splitlines()[:2] == ["--- train.py", "+++ train.py"]
        assert "-    total += loss\n+    total += loss.item()\n" in diff.stdout
        assert diff.stderr == "Would fix 1 finding in 1 file (1 remaining; 1 more fixable with --unsafe-fixes).\n"
    assert (leaky / "train.py").read_text() == LEAKY
    refused = run_tool("torchleak", "--diff", "--statistics", "train.py", cwd=leaky)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1


def test_a_file_not_analysed_gets_a_note_unless_tlk900_reports_it(tmp_path: Path) -> None:
    (tmp_path / "deep.py").write_text(DEEP)
    result = run_tool("torchleak", "deep.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr == "deep.py: note: not analysed: nested more than 100 levels deep (select TLK900 to report it as a finding)\n"
    selected = run_tool("torchleak", "--extend-select", "TLK900", "deep.py", cwd=tmp_path)
    assert "TLK900 not analysed" in selected.stdout and selected.stderr == ""
    assert run_tool("torchleak", "-q", "deep.py", cwd=tmp_path).stderr == ""


def test_syntax_errors_have_a_code_that_can_be_selected_and_ignored(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "train.py").write_text(LEAKY)
    result = run_tool("torchleak", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert findings(result.stdout)[0] == "./broken.py:1:7: TLK999 syntax error: invalid syntax"
    only = run_tool("torchleak", "--select", "TLK999", ".", cwd=tmp_path)
    assert findings(only.stdout) == ["./broken.py:1:7: TLK999 syntax error: invalid syntax"]
    ignored = run_tool("torchleak", "--ignore", "TLK999", "broken.py", cwd=tmp_path)
    assert ignored.returncode == 0 and ignored.stdout == ""
    (tmp_path / "pyproject.toml").write_text('[tool.torchleak]\nper-file-ignores = {"broken.py" = ["TLK999"]}\n')
    assert run_tool("torchleak", "broken.py", cwd=tmp_path).returncode == 0
    assert "TLK999  syntax-error" in run_tool("torchleak", "--list-rules").stdout


def test_explain_takes_names_and_tlk900_and_errors_in_one_line() -> None:
    by_name = run_tool("torchleak", "--explain", "accumulated-loss")
    assert by_name.returncode == 0 and by_name.stdout == run_tool("torchleak", "--explain", "TLK101").stdout
    assert "## Why is this bad?" in by_name.stdout
    notice = run_tool("torchleak", "--explain", "TLK900")
    assert notice.returncode == 0 and "not-analysed" in notice.stdout
    assert run_tool("torchleak", "--explain", "not-analysed").stdout == notice.stdout
    unknown = run_tool("torchleak", "--explain", "leaky-thing")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "usage:" not in unknown.stderr


def test_explain_in_a_terminal_prints_links_as_paths_that_exist() -> None:
    primary, secondary = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "torchleak", "--explain", "TLK101"], stdout=secondary, cwd="/")
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    process.wait(timeout=60)
    os.close(primary)
    text = output.decode()
    links = [part.split(")", 1)[0] for part in text.split("](")[1:]]
    assert links and all(Path(link).is_absolute() and Path(link).exists() for link in links), links


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("    total += loss  # noqa: TLK102", "a noqa for another code"),
        ("    total += loss  #noqa", "flake8 needs '# noqa' with the space"),
        ("    total += loss  # NOQA:TLK1", "a prefix, upper case, no space"),
        ("    total += loss  # noqa: E501,TLK101", "a list"),
    ],
)
def test_noqa_is_the_same_through_flake8_and_the_cli(tmp_path: Path, line: str, why: str) -> None:
    (tmp_path / "train.py").write_text(LEAKY.replace("    total += loss", line))
    cli = findings(run_tool("torchleak", "train.py", cwd=tmp_path).stdout)
    flake8 = run_tool("flake8", "--select", "TLK", "train.py", cwd=tmp_path).stdout.splitlines()
    assert cli == flake8, why


def test_noqa_on_a_multi_line_statement_and_for_the_file_is_the_same_through_flake8_and_the_cli(tmp_path: Path) -> None:
    source = "total = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    total += (\n        loss\n    )  # noqa: TLK101\n"
    (tmp_path / "train.py").write_text(source)
    # flake8 reads a noqa on the lines of one token only (a multi-line string), not of a bracket.
    flake8 = run_tool("flake8", "--select", "TLK", "train.py", cwd=tmp_path).stdout.splitlines()
    assert flake8 and findings(run_tool("torchleak", "train.py", cwd=tmp_path).stdout) == flake8
    (tmp_path / "skip.py").write_text("# flake8: noqa\n" + LEAKY)
    assert run_tool("flake8", "--select", "TLK", "skip.py", cwd=tmp_path).stdout == ""
    assert run_tool("torchleak", "skip.py", cwd=tmp_path).stdout == ""
