"""``torchleak/parsing.py``: the trees are libcst's own, validation is skipped only for our own
parse, and libcst is left as it was whatever happens."""

from __future__ import annotations

import ast
import importlib.util
import os
import pickle
import sys
import threading
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from torchleak import parsing
from torchleak.analysis.prefilter import Segment, plan
from torchleak.analysis.settings import Origin, Settings
from torchleak.analysis.torch_knowledge import PER_BATCH_METHODS
from torchleak.cache import Cache
from torchleak.engine import check_source
from torchleak.parsing import parse_module, parse_segments, validation_skipped

ROOT = Path(__file__).resolve().parent.parent


def benchmark_module() -> ModuleType:
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)  # benchmark.py imports its sibling bench_training
    spec = importlib.util.spec_from_file_location("torchleak_benchmark", ROOT / "scripts" / "benchmark.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def examples() -> list[Path]:
    return sorted([*(ROOT / "tests" / "zoo").glob("*.py"), *(ROOT / "tests" / "realistic").glob("*.py")])


def test_trees_equal_libcsts_own_parse() -> None:
    sources = [benchmark_module().typical_training_file()] + [path.read_text(encoding="utf-8") for path in examples()]
    for source in sources:
        assert parse_module(source).deep_equals(cst.parse_module(source))


def _same_code(source: str) -> None:
    scope = plan(source, ast.parse(source), PER_BATCH_METHODS, 100)
    parts = [(segment, parse_module(segment.text)) for segment in scope.segments]
    whole = cst.Module(body=[statement for _, part in parts for statement in part.body]).code
    assert "".join(parsing.statements_code(segment.text, part) for segment, part in parts) == whole
    alone = parse_module(source)  # a whole file: its header and footer comments
    assert parsing.statements_code(source, alone) == cst.Module(body=alone.body).code


def test_statements_code_is_the_codegen_of_the_statements() -> None:
    """What the project index scans for the imports a file uses: the text read off the segments
    equals libcst's codegen of the analysed module on every example."""
    for path in examples():
        _same_code(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", [
    "# a header comment\n\nimport os\nfor x in y:\n    total += x\n# a footer comment\n",
    "for x in y:\n    total += x  # no newline at the end",
    "def f():\n\tfor x in y:\n\t\ttotal += x\n",
    "for x in y:\r\n    total += x\r\n",
    "  # lead\nfor x in y:\n  t += x\n\n# tail\n\n",
    "for x in y: total += x; z = 1\n\n\nclass A:\n    def f(self):\n        for b in c:\n            self.t += b\n        # end\n",
])
def test_statements_code_with_tabs_crlf_headers_and_footers(source: str) -> None:
    _same_code(source)


def test_libcst_is_restored_after_a_parse_and_after_a_syntax_error() -> None:
    before = CSTNode.__dict__["__post_init__"]
    parse_module("x = 1\n")
    assert CSTNode.__dict__["__post_init__"] is before
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n")
    assert CSTNode.__dict__["__post_init__"] is before
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_nested_use_restores_libcst_once_the_outermost_ends() -> None:
    before = CSTNode.__dict__["__post_init__"]
    with validation_skipped():
        with validation_skipped():
            cst.Name("1 2")  # not validated
        cst.Name("1 2")
    assert CSTNode.__dict__["__post_init__"] is before
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1 2")


def test_other_threads_nodes_are_still_validated() -> None:
    """While our parse runs, a node another thread builds is validated, as libcst would."""
    go, done = threading.Event(), threading.Event()
    seen: list[BaseException] = []

    def other() -> None:
        go.wait(5)
        try:
            cst.Name("1 2")
        except cst.CSTValidationError as error:
            seen.append(error)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    try:
        with validation_skipped():
            go.set()
            assert done.wait(5)
            cst.Name("1 2")  # ours: not validated
    finally:
        thread.join(5)
    assert len(seen) == 1


# ----------------------------------------------------------------- the segment tree cache
REALISTIC = ROOT / "tests" / "realistic"


def segments_of(source: str) -> tuple[Segment, ...]:
    return plan(source, ast.parse(source), PER_BATCH_METHODS, 100).segments


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("TORCHLEAK_NO_CACHE", raising=False)
    (tmp_path / "pyproject.toml").write_text("")
    return tmp_path


def tree_entries(project: Path) -> list[Path]:
    """The stored trees (without the 32-byte notes of the files linted once)."""
    return sorted(path for path in (project / ".torchleak_cache").glob(f"*/{parsing.NAMESPACE}/*.bin") if path.stat().st_size > 32)


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = cst.parse_module

    def counted(source: Any, *args: Any, **kwargs: Any) -> cst.Module:
        parsed.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(cst, "parse_module", counted)
    return parsed


def a_training_source() -> str:
    return max((path.read_text(encoding="utf-8") for path in REALISTIC.glob("*.py")), key=len)


def test_cached_trees_equal_a_fresh_parse_and_are_not_parsed_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = a_training_source()
    segments = segments_of(source)
    assert len(segments) > 3
    origin = Origin(str(project / "train.py"))
    parse_segments(segments, origin)
    assert tree_entries(project) == []  # a file linted once stores no trees: only a note
    first = parse_segments(segments, origin)
    assert len(tree_entries(project)) == len({segment.text for segment in segments})
    parsed = counting_parses(monkeypatch)
    second = parse_segments(segments, origin)
    assert parsed == []
    assert [line for line, _ in second] == [segment.first_line for segment in segments] == [line for line, _ in first]
    for (_, cached), segment in zip(second, segments):
        assert cached.deep_equals(parse_module(segment.text))
        assert cached.code == segment.text


def test_after_an_edit_only_the_changed_segment_is_parsed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = a_training_source()
    origin = Origin(str(project / "train.py"))
    parse_segments(segments_of(source), origin)
    parse_segments(segments_of(source), origin)
    segments = segments_of(source)
    target = max(segments, key=lambda segment: len(segment.text))
    edited = source.replace(target.text, target.text + "x_edited = 1\n", 1)
    parsed = counting_parses(monkeypatch)
    trees = parse_segments(segments_of(edited), origin)
    assert len(parsed) == 1
    assert [tree.code for _, tree in trees] == [segment.text for segment in segments_of(edited)]


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: b"",
        lambda blob: blob[:40],
        lambda blob: blob[:32] + b"not zlib at all",
        lambda blob: blob[:32] + zlib.compress(b"not a pickle"),
        lambda blob: blob[:32] + zlib.compress(pickle.dumps({"a": "dict, not a tree"})),
        lambda blob: blob[:32] + zlib.compress(pickle.dumps(cst.Name("x"))),
        lambda blob: blob[:-7],
        lambda blob: bytes(255 - byte for byte in blob),
    ],
)
def test_a_damaged_entry_is_parsed_again(project: Path, damage: Any) -> None:
    source = a_training_source()
    segments = segments_of(source)
    origin = Origin(str(project / "train.py"))
    parse_segments(segments, origin)
    parse_segments(segments, origin)
    for entry in tree_entries(project):
        entry.write_bytes(damage(entry.read_bytes()))
    trees = parse_segments(segments, origin)
    assert [tree.code for _, tree in trees] == [segment.text for segment in segments]
    # and the entries are written afresh
    assert all(cached.deep_equals(fresh) for (_, cached), (_, fresh) in zip(parse_segments(segments, origin), trees))


ran: list[str] = []


def _planted() -> cst.Module:
    ran.append("code from the cache ran")
    return cst.parse_module("x = 1\n")


class Planted:
    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _planted, ()


def test_an_entry_that_names_anything_but_libcst_nodes_is_not_loaded(project: Path) -> None:
    """A cache directory committed to a repository cannot make the linter run code."""
    segment = Segment(1, "for x in loader:\n    total += x\n")
    origin = Origin(str(project / "train.py"))
    parse_segments([segment], origin)
    parse_segments([segment], origin)
    [entry] = tree_entries(project)
    header = entry.read_bytes()[:32]
    entry.write_bytes(header + zlib.compress(pickle.dumps(Planted())))
    [(_, tree)] = parse_segments([segment], origin)
    assert ran == [] and tree.code == segment.text


def test_no_cache_reads_and_writes_no_trees(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    segments = segments_of(a_training_source())
    parse_segments(segments, Origin(str(project / "train.py"), use_cache=False))
    parse_segments(segments, None)
    monkeypatch.setenv("TORCHLEAK_NO_CACHE", "1")
    parse_segments(segments, Origin(str(project / "train.py")))
    assert tree_entries(project) == []
    assert not (project / ".torchleak_cache").exists()


def test_the_cache_dir_setting_is_honoured(project: Path) -> None:
    for _ in range(2):
        parse_segments(segments_of(a_training_source()), Origin(str(project / "train.py"), cache_dir=str(project / "elsewhere")))
    assert tree_entries(project) == []
    assert list((project / "elsewhere").glob(f"*/{parsing.NAMESPACE}/*.bin"))


def test_the_namespace_keeps_the_entries_written_last(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    for number in range(10):
        cache.put_bytes("trees", f"key {number}", b"tree")
        os.utime(cache._file("trees", f"key {number}", ".bin"), ns=(number * 10**9, number * 10**9))
    cache.bound("trees", 10)
    assert all(cache.get_bytes("trees", f"key {number}") == b"tree" for number in range(10))
    cache.bound("trees", 8)
    assert [number for number in range(10) if cache.get_bytes("trees", f"key {number}") is not None] == [4, 5, 6, 7, 8, 9]


def test_findings_are_the_same_with_trees_from_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine on every realistic example: alone, then linted three times with the cache (each
    time edited after its last statement, so that the findings cache misses): the first notes the
    file, the second stores its trees, the third parses nothing. The same findings each time."""
    parsed = counting_parses(monkeypatch)
    for path in sorted(REALISTIC.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        settings = Settings(origin=Origin(str(project / path.name)))
        alone = check_source(source, select=("TLK", "TLK900"))
        linted = []
        for number in range(3):
            parsed.clear()
            linted.append(check_source(source + "\n# edited\n" * number, select=("TLK", "TLK900"), settings=settings))
        assert parsed == [], path.name
        for result in linted:
            assert (result.findings, result.skipped) == (alone.findings, alone.skipped), path.name


def test_a_cache_that_fails_costs_only_time(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    segments = segments_of(a_training_source())
    origin = Origin(str(project / "train.py"))
    fresh = parse_segments(segments, origin)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a cache that fails")

    for name in ("get_bytes", "put_bytes", "bound"):
        monkeypatch.setattr(Cache, name, broken)
    again = parse_segments(segments, origin)
    assert [tree.code for _, tree in again] == [tree.code for _, tree in fresh]


def test_trees_pickle_as_libcst_pickles_them(project: Path) -> None:
    """The reducers give each node what libcst's own ``__getstate__`` gives: the same bytes."""
    segments = segments_of(a_training_source())
    origin = Origin(str(project / "train.py"))
    parse_segments(segments, origin)
    parse_segments(segments, origin)
    cache = Cache(project / ".torchleak_cache")
    for segment in segments:
        blob = cache.get_bytes(parsing.NAMESPACE, f"{parsing._stamp()}{segment.text}")
        assert blob is not None
        assert zlib.decompress(blob) == pickle.dumps(cst.parse_module(segment.text), protocol=pickle.HIGHEST_PROTOCOL)
