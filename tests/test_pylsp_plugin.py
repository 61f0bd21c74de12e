"""torchleak's pylsp plugin without a server: its diagnostics, its settings, and that it never raises.
(tests/test_lsp.py drives the real server.)"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from torchleak.pylsp_plugin import diagnostics, flake8_reports_tlk, pylsp_lint, pylsp_settings

LEAKY = """\
import torch


def train(model, loader, optimizer):
    total = 0
    for x, y in loader:
        loss = model(x).sum() - y.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss
    return total
"""


def _project(tmp_path: Path, table: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.torchleak]\n" + table)
    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    return path


def test_a_finding_becomes_a_warning_on_its_line(tmp_path: Path) -> None:
    path = _project(tmp_path)
    [found] = diagnostics(LEAKY, str(path), {})
    assert found["code"] == "TLK101" and found["source"] == "torchleak" and found["severity"] == 2
    assert found["message"].startswith("TLK101 'total += loss'")
    row = LEAKY.splitlines().index("        total += loss")
    assert found["range"] == {"start": {"line": row, "character": 8}, "end": {"line": row, "character": 21}}


def test_the_unsaved_text_is_linted_not_the_file(tmp_path: Path) -> None:
    path = _project(tmp_path)
    assert diagnostics(LEAKY.replace("total += loss", "total += loss.item()"), str(path), {}) == []


def test_characters_are_counted_in_utf16_units(tmp_path: Path) -> None:
    path = _project(tmp_path)
    text = LEAKY.replace("        total += loss", "        s = '\U0001f600'; total += loss")
    [found] = diagnostics(text, str(path), {})
    line = text.splitlines()[found["range"]["start"]["line"]]
    # the emoji is one character in Python and two UTF-16 code units in LSP
    assert found["range"]["start"]["character"] == line.index("total") + 1
    assert found["range"]["end"]["character"] == len(line) + 1


def test_settings_select_and_ignore_as_lists_or_strings(tmp_path: Path) -> None:
    path = _project(tmp_path)
    assert diagnostics(LEAKY, str(path), {"ignore": ["TLK101"]}) == []
    assert diagnostics(LEAKY, str(path), {"select": "TLK2, TLK3"}) == []
    assert [d["code"] for d in diagnostics(LEAKY, str(path), {"select": ["TLK1"]})] == ["TLK101"]


def test_the_pyproject_table_applies_as_in_the_command(tmp_path: Path) -> None:
    assert diagnostics(LEAKY, str(_project(tmp_path, 'ignore = ["TLK101"]\n')), {}) == []
    other = tmp_path / "other"
    other.mkdir()
    assert diagnostics(LEAKY, str(_project(other, 'exclude = ["train.py"]\n')), {}) == []


def test_noqa_silences_as_under_flake8(tmp_path: Path) -> None:
    path = _project(tmp_path)
    assert diagnostics(LEAKY.replace("total += loss", "total += loss  # noqa: TLK101"), str(path), {}) == []


def test_a_syntax_error_is_left_to_the_other_linters(tmp_path: Path) -> None:
    path = _project(tmp_path)
    assert diagnostics("def broken(:\n", str(path), {}) == []


def test_flake8_reporting_tlk_silences_the_plugin() -> None:
    assert not flake8_reports_tlk({})
    assert not flake8_reports_tlk({"enabled": False})
    assert flake8_reports_tlk({"enabled": True})
    assert flake8_reports_tlk({"enabled": True, "select": ["E", "TLK"]})
    assert flake8_reports_tlk({"enabled": True, "select": "TLK101"})
    assert not flake8_reports_tlk({"enabled": True, "select": ["E999"]})
    assert not flake8_reports_tlk({"enabled": True, "ignore": ["TLK"]})


class _Config:
    def __init__(self, plugins: dict[str, dict[str, Any]]) -> None:
        self.plugins = plugins

    def plugin_settings(self, name: str, document_path: str | None = None) -> dict[str, Any]:
        return self.plugins.get(name, {})


def test_the_hook_reads_the_servers_settings_and_never_raises(tmp_path: Path) -> None:
    path = _project(tmp_path)
    document = SimpleNamespace(source=LEAKY, path=str(path))
    assert pylsp_settings() == {"plugins": {"torchleak": {"enabled": True}}}
    workspace = SimpleNamespace(_config=_Config({}))
    assert [d["code"] for d in pylsp_lint(workspace, document)] == ["TLK101"]
    silenced = SimpleNamespace(_config=_Config({"flake8": {"enabled": True}}))
    assert pylsp_lint(silenced, document) == []
    # a document the plugin cannot read, a workspace without a configuration: no diagnostics, no exception
    assert pylsp_lint(SimpleNamespace(), SimpleNamespace(source=None, path=None)) == []
