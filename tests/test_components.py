"""A file's components (``torchleak/analysis/components.py``) and the re-lint after an edit that
analyses only the components the edit changed (``engine._lint_by_components``)."""

from __future__ import annotations

import ast
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from torchleak import engine, findings_cache
from torchleak.analysis import project as project_index
from torchleak.analysis.components import partition
from torchleak.analysis.prefilter import plan
from torchleak.analysis.settings import Origin, Settings
from torchleak.analysis.torch_knowledge import PER_BATCH_METHODS
from torchleak.engine import check_source

sys.path.insert(0, str(ROOT / "scripts"))
import check_findings  # noqa: E402


def groups(source: str) -> list[list[str]]:
    """Each component as the first line of each of its statements (imports left out)."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    scope = plan(source, tree, PER_BATCH_METHODS, 100)
    parts = partition(tree, scope.segments, PER_BATCH_METHODS)
    first_lines = [segment.text.strip().splitlines()[0] for segment in scope.segments]
    return sorted(sorted(first_lines[position] for position in component.segments) for component in parts.components)


class TestLinks:
    def test_functions_sharing_no_name_are_apart(self) -> None:
        assert groups("""
            import torch
            import torch.nn.functional as F

            def train_a(model, loader):
                for x, y in loader:
                    F.mse_loss(model(x), y).backward()

            def train_b(model, loader):
                for x, y in loader:
                    torch.sum(model(x) - y).backward()
            """) == [["def train_a(model, loader):"], ["def train_b(model, loader):"]]

    def test_a_call_links_the_caller_to_the_callee(self) -> None:
        assert groups("""
            def loss_of(model, x):
                return model(x).sum()

            def train(model, loader):
                for x in loader:
                    loss_of(model, x).backward()

            def other(loader):
                for x in loader:
                    print(x)
            """) == [["def loss_of(model, x):", "def train(model, loader):"], ["def other(loader):"]]

    def test_a_global_links_every_function_reading_it(self) -> None:
        found = groups("""
            history = []

            def train(model, loader):
                for x in loader:
                    history.append(model(x))

            def report():
                for h in history:
                    h.sum().backward()
            """)
        assert found == [["def report():", "def train(model, loader):", "history = []"]]

    def test_names_from_another_library_link_but_torch_and_builtins_do_not(self) -> None:
        found = groups("""
            import torch
            from lpips import LPIPS

            def a(loader):
                for x in loader:
                    print(len(torch.ones(1)))

            def b(loader):
                for x in loader:
                    print(len(torch.ones(2)))

            def c(loader):
                for x in loader:
                    LPIPS()(x, x).backward()

            def d(loader):
                for x in loader:
                    LPIPS()(x, x)
            """)
        assert found == [["def a(loader):"], ["def b(loader):"], ["def c(loader):", "def d(loader):"]]

    def test_a_member_read_through_an_object_links_to_its_class(self) -> None:
        found = groups("""
            class Meter:
                def update(self, value):
                    self.total = self.total + value

            def train(meter, loader):
                for x in loader:
                    meter.update(x)

            def other(loader):
                for x in loader:
                    x.sum()
            """)
        assert found == [["class Meter:", "def train(meter, loader):"], ["def other(loader):"]]

    def test_a_logger_call_and_an_annotation_from_typing_link_nothing(self) -> None:
        found = groups("""
            import logging
            from typing import Optional

            log = logging.getLogger(__name__)

            def a(loader, h: Optional[int] = None):
                for x in loader:
                    log.info("step %s", x)

            def b(loader, h: Optional[int] = None):
                for x in loader:
                    log.info("step %s", x)
            """)
        assert found == [["def a(loader, h: Optional[int] = None):"], ["def b(loader, h: Optional[int] = None):"], ["log = logging.getLogger(__name__)"]]

    def test_a_module_keeping_state_in_its_forward_links_to_every_loop(self) -> None:
        found = groups("""
            import torch.nn as nn

            class Cell(nn.Module):
                def forward(self, x):
                    self.h = self.lin(x, self.h)
                    return self.h

            class Plain(nn.Module):
                def forward(self, x):
                    return self.lin(x)

            def train(model, loader):
                for x in loader:
                    model(x).sum().backward(retain_graph=True)
            """)
        assert found == [["class Cell(nn.Module):", "def train(model, loader):"], ["class Plain(nn.Module):"]]


def test_each_component_alone_gives_the_files_findings_on_the_zoo_and_the_examples() -> None:
    files = check_findings.local_files()
    assert len(files) > 400
    assert [(path.name, why) for path in files if (why := check_findings.component_difference(path))] == []


def test_each_component_alone_gives_the_projects_findings() -> None:
    files = sorted((ROOT / "tests" / "projects").rglob("*.py"))
    assert len(files) > 200
    assert [(str(path), why) for path in files if (why := check_findings.component_difference(path, project=True))] == []


# ------------------------------------------------------------------ the re-lint after an edit

TRAIN = """\
import torch
import torch.nn.functional as F


def train_a(model, loader, optimizer):
    total = 0
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss
    return total


def train_b(model, loader, optimizer, log_every=50):
    seen = 0
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        seen += 1
    return seen


def train_c(model, loader, optimizer):
    outputs = []
    for x, y in loader:
        out = model(x)
        F.mse_loss(out, y).backward()
        optimizer.step()
        outputs.append(out)
    return outputs
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("TORCHLEAK_NO_CACHE", raising=False)
    project_index._INDEXES.clear()
    findings_cache._current_stamp.cache_clear()
    (tmp_path / "pyproject.toml").write_text("")
    return tmp_path


def lint(project: Path, source: str, monkeypatch: pytest.MonkeyPatch, use_cache: bool = True) -> tuple[list[tuple[int, int, str]], list[int]]:
    """The findings, and the first lines of the segments libcst analysed."""
    path = project / "train.py"
    path.write_text(source)
    analysed: list[int] = []
    lint_segments = engine._lint_segments

    def recording(segments, *args, **kwargs):  # type: ignore[no-untyped-def]
        analysed.extend(segment.first_line for segment in segments)
        return lint_segments(segments, *args, **kwargs)

    monkeypatch.setattr(engine, "_lint_segments", recording)
    result = check_source(source, settings=Settings(origin=Origin(str(path), use_cache=use_cache)))
    monkeypatch.setattr(engine, "_lint_segments", lint_segments)
    assert result.skipped is None
    return [(f.line, f.column, f.code) for f in result.findings], analysed


def fresh(project: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, str]]:
    return lint(project, source, monkeypatch, use_cache=False)[0]


class TestRelintAfterAnEdit:
    def test_only_the_edited_function_and_the_imports_are_analysed_again(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        first, analysed = lint(project, TRAIN, monkeypatch)
        assert [code for _, _, code in first] == ["TLK101", "TLK102"]
        assert len(analysed) == 5  # two imports, three functions
        edited = TRAIN.replace("log_every=50", "log_every=51")
        again, analysed = lint(project, edited, monkeypatch)
        assert again == first == fresh(project, edited, monkeypatch)
        assert analysed == [1, 2, 15]

    def test_an_edit_that_adds_a_leak_finds_it_and_keeps_the_others_in_place(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        lint(project, TRAIN, monkeypatch)
        edited = TRAIN.replace("        seen += 1\n", "        seen += 1\n        seen = seen + loss\n\n\n")
        again, analysed = lint(project, edited, monkeypatch)
        assert again == fresh(project, edited, monkeypatch)
        assert [(line, code) for line, _, code in again] == [(11, "TLK101"), (22, "TLK101"), (34, "TLK102")]
        assert analysed == [1, 2, 15]

    def test_lines_inserted_above_move_the_kept_findings(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        lint(project, TRAIN, monkeypatch)
        edited = TRAIN.replace("def train_a(", "# a comment\n\ndef helper():\n    return 1\n\n\ndef train_a(", 1)
        again, analysed = lint(project, edited, monkeypatch)
        assert again == fresh(project, edited, monkeypatch)
        assert [(line, code) for line, _, code in again] == [(17, "TLK101"), (37, "TLK102")]
        assert analysed == [1, 2, 7]  # the imports and the new helper

    def test_an_edit_that_links_two_components_analyses_both(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        lint(project, TRAIN, monkeypatch)
        edited = TRAIN.replace("    return seen\n", "    return seen, train_c(model, loader, optimizer)\n")
        again, analysed = lint(project, edited, monkeypatch)
        assert again == fresh(project, edited, monkeypatch)
        assert analysed == [1, 2, 15, 25]

    def test_an_unchanged_file_is_not_analysed_at_all(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        first, _ = lint(project, TRAIN, monkeypatch)
        again, analysed = lint(project, TRAIN, monkeypatch)
        assert (again, analysed) == (first, [])

    def test_a_damaged_record_is_analysed_afresh(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        lint(project, TRAIN, monkeypatch)
        for entry in (project / ".torchleak_cache").rglob("*.json"):
            entry.write_text('{"key": 1, "value": [')
        edited = TRAIN.replace("log_every=50", "log_every=52")
        again, analysed = lint(project, edited, monkeypatch)
        assert again == fresh(project, edited, monkeypatch)
        assert len(analysed) == 5


@pytest.mark.parametrize("case", sorted((ROOT / "tests" / "zoo").glob("*.py"))[::25], ids=lambda path: path.stem)
def test_a_relint_after_an_edit_gives_what_a_fresh_lint_gives(case: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edits of a zoo file (a statement deleted, one repeated, lines inserted above one): the
    re-lint that reuses the first lint's components gives exactly the findings of a lint
    without cache (a fuzz of 440 such random edits over the zoo and the examples gave no
    difference)."""
    source = case.read_text()
    body = ast.parse(source).body
    lines = source.splitlines(keepends=True)
    middle = body[len(body) // 2]
    start, end = middle.lineno - 1, middle.end_lineno or middle.lineno
    edits = [
        "".join(lines[:start] + lines[end:]),
        "".join(lines[:end] + ["\n"] + lines[start:end] + lines[end:]),
        "".join(lines[:start] + ["# an edit above\n\n"] + lines[start:]),
    ]
    for edited in edits:
        try:
            ast.parse(edited)
        except SyntaxError:
            continue
        shutil.rmtree(project / ".torchleak_cache", ignore_errors=True)
        lint(project, source, monkeypatch)
        again, _ = lint(project, edited, monkeypatch)
        assert again == fresh(project, edited, monkeypatch)
