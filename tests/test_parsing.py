"""``torchleak/parsing.py``: the trees are libcst's own, validation is skipped only for our own
parse, and libcst is left as it was whatever happens."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from torchleak.parsing import parse_module, validation_skipped

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
