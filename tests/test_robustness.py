"""Never a traceback, never a hang, never a dead flake8 run: pathological and random input."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_tool
from torchleak.engine import MAX_CHARACTERS, _LibcstRejected, _lint_relevant, check_source
from torchleak.rules import ALL_RULES

FUZZ_EXAMPLES = int(os.environ.get("TORCHLEAK_FUZZ_EXAMPLES", "150"))


def _analyse_everything(source: str) -> None:
    """Run the analysis and every rule on ``source``, bypassing the pre-filter, letting errors out."""
    _lint_relevant(source)


def test_nested_call_190_deep_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "deep.py"
    path.write_text("for x in loader:\n    y = " + "f(" * 190 + "1" + ")" * 190 + "\n")
    result = run_tool("flake8", "--select", "TLK,E", "--extend-select", "TLK900", str(path))
    assert "TLK900 not analysed: nested more than 100 levels deep" in result.stdout
    assert "Traceback" not in result.stderr


def test_long_addition_chain_costs_no_libcst_parse() -> None:
    source = "for b in loader:\n    loss.backward()\n    x = " + " + ".join(["a"] * 2000) + "\n"
    started = time.perf_counter()
    result = check_source(source, select=("TLK", "TLK900"))
    assert result.skipped is not None and "nested" in result.skipped
    # libcst would take about a second here (its parse is quadratic in chain length).
    assert time.perf_counter() - started < 0.5


def test_chain_too_long_for_cpython_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "chain.py"
    path.write_text("x = " + " + ".join(["a"] * 5000) + "\n")
    result = run_tool("torchleak", str(path))
    assert result.returncode == 1
    assert "TLK999 syntax error: too deeply nested for CPython's parser" in result.stdout
    assert "Traceback" not in result.stderr


def test_huge_file_is_skipped_before_parsing() -> None:
    source = "for x in loader:\n    total += loss\n" + "y = 1\n" * (MAX_CHARACTERS // 6 + 1)
    started = time.perf_counter()
    result = check_source(source, select=("TLK", "TLK900"))
    assert result.skipped is not None and "larger than" in result.skipped
    assert time.perf_counter() - started < 0.5


def test_fifty_megabyte_file_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    with path.open("w") as handle:
        handle.write("for x in loader:\n    total += model(x)\n")
        line = "value = 1  # " + "x" * 80 + "\n"
        handle.write(line * (50_000_000 // len(line)))
    result = run_tool("torchleak", "--extend-select", "TLK900", str(path))
    assert "TLK900 not analysed: larger than" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.py", b""),
        ("nul.py", b"for x in loader:\n    total += loss\x00\n"),
        ("only_comment.py", b"# backward loader\n"),
        ("tabs.py", b"for x in loader:\n\tloss = criterion(model(x), y)\n\tloss.backward()\n\ttotal += loss\n"),
        ("crlf.py", b"total = 0\r\nfor x in loader:\r\n    loss = criterion(model(x), y)\r\n    loss.backward()\r\n    total += loss\r\n"),
        ("form_feed.py", b"\x0cfor x in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n"),
    ],
)
def test_odd_files_give_a_message_or_silence(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    tools: list[tuple[str, ...]] = [("torchleak",), ("flake8", "--select", "TLK,E999")]
    if "Traceback" in run_tool("flake8", "--select", "E999", str(path)).stderr:
        # (flake8 itself, without any TLK code, crashes on NUL bytes under some Python 3.11
        # releases, whose ast.parse raises ValueError there: nothing a plugin can change)
        tools.pop()
    for tool in tools:
        result = run_tool(*tool, str(path))
        assert "Traceback" not in result.stderr, (tool, result.stderr)
        assert result.returncode in (0, 1)
    if name in ("tabs.py", "crlf.py"):
        assert "TLK101" in run_tool("torchleak", str(path)).stdout


def test_unreadable_file_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("total = 0\nfor x in loader:\n    loss = model(x)\n    loss.backward()\n    total += loss\n")
    os.symlink(tmp_path / "nowhere.py", tmp_path / "broken.py")
    fifo_like = tmp_path / "dir.py"
    fifo_like.mkdir()  # a directory whose name looks like a module: skipped by discovery
    result = run_tool("torchleak", str(tmp_path), str(tmp_path / "broken.py"))
    assert "broken.py: cannot read" in result.stderr
    assert "ok.py:5:5: TLK101" in result.stdout
    assert "Traceback" not in result.stderr


def test_flake8_plugin_is_disabled_when_no_tlk_code_is_selected() -> None:
    from flake8.main.application import Application

    from torchleak.flake8_plugin import Flake8Plugin

    try:
        Application().initialize(["--select", "E999", "x.py"])
        assert Flake8Plugin.enabled is False
        Application().initialize(["--select", "E999,TLK1", "x.py"])
        assert Flake8Plugin.enabled is True
        Application().initialize(["--extend-ignore", "TLK", "x.py"])
        assert Flake8Plugin.enabled is False
    finally:
        Flake8Plugin.enabled = True


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(source=__import__("hypothesmith").from_grammar())
def test_any_valid_program_analyses_without_an_exception(source: str) -> None:
    try:
        compile(source, "<fuzz>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the grammar admits a few programs CPython rejects
    try:
        _analyse_everything(source)
    except RecursionError:
        pass  # deep input: the engine skips it before reaching here (tested above)
    except _LibcstRejected:
        pass  # libcst rejects a few programs CPython accepts; the engine reports them (below)


def test_program_libcst_rejects_but_cpython_accepts_is_handled() -> None:
    # Found by the fuzzer: a trailing line continuation. CPython accepts it, libcst does not.
    trailing = "for x in loader:\n    loss.backward()\n\\\r\n"
    compile(trailing, "<s>", "exec")
    with pytest.raises(_LibcstRejected):
        _analyse_everything(trailing)
    # The engine hands libcst only the statements that matter, so this file is analysed...
    assert check_source(trailing, select=("TLK", "TLK900")).skipped is None
    # ...and where the rejected text is inside a statement that matters, it is a notice.
    inside = "for x in loader:\n    loss.backward()\n    y = 1 \\\r\n\n"
    compile(inside, "<s>", "exec")
    result = check_source(inside, select=("TLK", "TLK900"))
    assert result.skipped is not None and result.skipped.startswith("libcst cannot parse it")
    assert [f.code for f in result.findings] == ["TLK900"]


def _training_snippets() -> list[str]:
    sources = [example.code for rule in ALL_RULES for example in (*rule.flagged, *rule.clean)]
    sources += [path.read_text() for path in sorted((ROOT / "examples").glob("*.py"))]
    return sources


_MUTATIONS = (
    lambda lines, r: lines[: r.randrange(len(lines) + 1)],  # truncate
    lambda lines, r: [line for i, line in enumerate(lines) if i != r.randrange(len(lines))],  # drop a line
    lambda lines, r: lines + [lines[r.randrange(len(lines))]],  # repeat a line at the end
    lambda lines, r: [line.replace("loss", r.choice(["loss.item()", "loss.detach()", "self.loss", "loss[0]", "(loss, loss)"])) for line in lines],
    lambda lines, r: [line.replace("model(", r.choice(["self(", "self.model(", "model.forward(", "f("])) for line in lines],
    lambda lines, r: ["import torch", "with torch.no_grad():"] + ["    " + line for line in lines],
    lambda lines, r: ["def step(self, batch):"] + ["    " + line for line in lines] + ["    return loss"],
    lambda lines, r: [line.replace("for ", "async for ", 1) if r.random() < 0.5 else line for line in lines],
    lambda lines, r: [line.replace("+=", r.choice(["-=", "*=", "=", "|="])) for line in lines],
    lambda lines, r: [line.replace("retain_graph=True", r.choice(["retain_graph=keep", "retain_graph=False", "*args", "**kw"])) for line in lines],
)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    snippet=st.sampled_from(_training_snippets()),
    mutations=st.lists(st.integers(min_value=0, max_value=len(_MUTATIONS) - 1), min_size=1, max_size=4),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_mutated_training_scripts_analyse_without_an_exception(snippet: str, mutations: list[int], seed: int) -> None:
    rng = random.Random(seed)
    lines = snippet.splitlines() or ["pass"]
    for index in mutations:
        lines = _MUTATIONS[index](lines, rng) or ["pass"]
    source = "\n".join(lines) + "\n"
    try:
        compile(source, "<mutated>", "exec", dont_inherit=True, flags=0x400)  # PyCF_ALLOW_TOP_LEVEL_AWAIT
    except SyntaxError:
        return
    _analyse_everything(source)
    result = check_source(source, select=("TLK", "TLK900"))
    assert result.skipped is None, result.skipped


CORPUS = os.environ.get("TORCHLEAK_CORPUS", "/tmp/perfcorpus/src")


@pytest.mark.slow
@pytest.mark.skipif(not Path(CORPUS).is_dir(), reason="no corpus: build it with shared/perf/make_corpus.sh DIR and set TORCHLEAK_CORPUS=DIR/src")
def test_whole_corpus_lints_without_an_internal_error() -> None:
    from torchleak.cli import decode

    failures = []
    files = sorted(Path(CORPUS).rglob("*.py"))
    for path in files:
        result = check_source(decode(path.read_bytes()), select=("TLK", "TLK900"))
        if result.skipped is not None and result.skipped.startswith("internal error"):
            failures.append((str(path), result.skipped))
    assert len(files) > 1000
    assert failures == []
