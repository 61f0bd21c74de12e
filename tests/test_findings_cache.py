"""The findings cache (``torchleak/findings_cache.py``): a file linted again unchanged is not
analysed again, and any change its findings could depend on makes it analysed afresh."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from torchleak import findings_cache
from torchleak.analysis import project as project_index
from torchleak.analysis.settings import Origin, Settings
from torchleak.engine import check_source

HELPER = """\
def embed(backbone, images):
    return backbone(images)
"""

TRAIN = """\
import torch
from torch import nn

from helpers import embed

net = nn.Linear(4, 4)
bank = []
for inputs in loader:
    bank.append(embed(net, inputs))
"""


def new_run() -> None:
    """What a new ``torchleak`` or ``flake8`` process starts from: files are stamped once per
    run, by the project index and by the findings cache alike."""
    project_index._INDEXES.clear()
    findings_cache._current_stamp.cache_clear()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("TORCHLEAK_NO_CACHE", raising=False)
    new_run()
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "train.py").write_text(TRAIN)
    return tmp_path


def lint(project: Path, *, fixes: bool = False, source: str = TRAIN, use_cache: bool = True) -> tuple[list[tuple[int, int, str, str]], dict[str, float]]:
    phases: dict[str, float] = {}
    settings = Settings(origin=Origin(str(project / "train.py"), use_cache=use_cache))
    result = check_source(source, settings=settings, fixes=fixes, phases=phases)
    assert result.skipped is None
    return [(f.line, f.column, f.code, f.message) for f in result.findings], phases


def entries(project: Path) -> list[Path]:
    return sorted((project / ".torchleak_cache").glob("*/findings/*.json"))


def test_an_unchanged_file_is_not_analysed_again(project: Path) -> None:
    first, phases = lint(project)
    assert [code for _, _, code, _ in first] == ["TLK102"]
    assert "analysis walks" in phases
    second, phases = lint(project)
    assert second == first
    assert "libcst parse" not in phases and "analysis walks" not in phases
    # The entry names the helper module it was computed from, with its stamp (and so does the
    # record of the file's components, ``tests/test_components.py``).
    values = [json.loads(entry.read_text())["value"] for entry in entries(project)]
    assert sorted(sorted(value) for value in values) == [["components", "deps", "names"], ["deps", "findings"]]
    assert all("helpers.py" in value["deps"] for value in values)


def test_an_edited_helper_makes_the_entry_stale(project: Path) -> None:
    assert [code for _, _, code, _ in lint(project)[0]] == ["TLK102"]
    helper = project / "helpers.py"
    helper.write_text(HELPER.replace("return backbone(images)", "return backbone(images).detach()"))
    stat = helper.stat()
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    new_run()
    found, phases = lint(project)
    assert found == []
    assert "analysis walks" in phases


def test_an_edited_file_is_analysed_again(project: Path) -> None:
    lint(project)
    edited = TRAIN.replace("bank.append(embed(net, inputs))", "bank.append(embed(net, inputs).detach())")
    found, phases = lint(project, source=edited)
    assert found == [] and "analysis walks" in phases


SUMMED = """\
import torch
from torch import nn

net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
total = 0
for inputs in loader:
    loss = net(inputs).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss
"""


def test_fixes_come_back_from_the_cache_as_they_were_offered(project: Path) -> None:
    settings = Settings(origin=Origin(str(project / "train.py")))
    fresh = check_source(SUMMED, settings=settings, fixes=True).findings
    assert fresh and fresh[0].fix is not None and fresh[0].fix.edits
    phases: dict[str, float] = {}
    cached = check_source(SUMMED, settings=settings, fixes=True, phases=phases).findings
    assert "analysis walks" not in phases
    assert [(f.line, f.column, f.code, f.message, f.fix) for f in cached] == [(f.line, f.column, f.code, f.message, f.fix) for f in fresh]
    # An entry without fixes is a different entry: asking for fixes never gets one without.
    assert len(entries(project)) == 1
    lint(project, source=SUMMED)
    assert len(entries(project)) == 3  # (and the record of the file's components, without fixes)


def test_a_damaged_entry_is_recomputed(project: Path) -> None:
    first, _ = lint(project)
    for entry in entries(project):  # the file's entry and its components' record
        blob = json.loads(entry.read_text())
        blob["value"]["findings" if "findings" in blob["value"] else "components"] = [["not", "a", "finding"]]
        entry.write_text(json.dumps(blob))
    again, phases = lint(project)
    assert again == first and "analysis walks" in phases


def test_no_cache_reads_and_writes_nothing(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lint(project, use_cache=False)
    assert entries(project) == []
    monkeypatch.setenv("TORCHLEAK_NO_CACHE", "1")
    _, phases = lint(project)
    _, phases = lint(project)
    assert entries(project) == [] and "analysis walks" in phases


def test_a_cache_that_fails_costs_only_time(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the cache raises (a package read from a zip, a full disk), the lint goes on."""
    first, _ = lint(project)

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(findings_cache, "code_stamp", broken)
    monkeypatch.setattr(findings_cache, "write", broken)
    again, phases = lint(project)
    assert again == first and "analysis walks" in phases
