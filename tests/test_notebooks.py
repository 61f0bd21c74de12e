"""`torchleak notebook.ipynb`: code cells only, IPython magics skipped, findings located by cell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import nbformat
import pytest

from conftest import LEAKY_MESSAGE, ROOT, findings, run_tool



def _cell(kind: str, source: str) -> dict[str, Any]:
    # Jupyter stores the source as a list of lines, each keeping its newline.
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook(path: Path, *cells: tuple[str, str], language: str = "python") -> Path:
    document = {
        "cells": [_cell(kind, source) for kind, source in cells],
        "metadata": {
            "kernelspec": {"display_name": language, "language": language, "name": language},
            "language_info": {"name": language},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    for index, cell in enumerate(document["cells"]):
        cell["id"] = f"cell-{index}"
    path.write_text(json.dumps(document, indent=1))
    nbformat.validate(nbformat.read(str(path), as_version=4))  # a real notebook, as Jupyter writes it
    return path


TRAINING = (
    ("markdown", "# Training\n\nA leaky loop."),
    ("code", "%matplotlib inline\n!pip install -q torch\nimport torch\ntotal = 0"),
    ("code", "%%bash\necho this is not python; for x in\n"),
    (
        "code",
        "%%time\n"
        "for x, y in loader:\n"
        "    %time loss = criterion(model(x), y)\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    total += loss\n",
    ),
    ("code", "model?\nfiles = !ls\n%timeit \\\n   f(x)\nprint(total)"),
)


def test_findings_are_located_by_cell_and_line(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "train.ipynb", *TRAINING)
    result = run_tool("torchleak", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    # cell 4 (counting the markdown cell, as Jupyter does), line 6 of that cell, column 5.
    assert findings(result.stdout) == [f"train.ipynb:cell 4:6:5: TLK101 {LEAKY_MESSAGE}"]
    assert path.exists()


def test_cells_are_analysed_together(tmp_path: Path) -> None:
    """Gradient accumulation split over cells: the later cell's backward() makes it clean."""
    accumulate = ("code", "total = 0\nfor x in micro_batches:\n    total += model(x).sum()\n")
    _notebook(tmp_path / "leaky.ipynb", ("code", "import torch"), accumulate)
    _notebook(tmp_path / "clean.ipynb", ("code", "import torch"), accumulate, ("code", "total.backward()\n"))
    assert "leaky.ipynb:cell 2:3:5: TLK101" in run_tool("torchleak", "leaky.ipynb", cwd=tmp_path).stdout
    clean = run_tool("torchleak", "clean.ipynb", cwd=tmp_path)
    assert clean.returncode == 0 and clean.stdout == ""


def test_json_and_sarif_carry_the_cell(tmp_path: Path) -> None:
    _notebook(tmp_path / "train.ipynb", *TRAINING)
    [finding] = json.loads(run_tool("torchleak", "--format", "json", "train.ipynb", cwd=tmp_path).stdout)["findings"]
    assert (finding["path"], finding["cell"], finding["line"], finding["column"], finding["code"]) == (
        "train.ipynb", 4, 6, 5, "TLK101"
    )
    log = json.loads(run_tool("torchleak", "--format", "sarif", "train.ipynb", cwd=tmp_path).stdout)
    jsonschema.Draft4Validator(json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())).validate(log)
    [result] = log["runs"][0]["results"]
    assert result["message"]["text"] == f"cell 4, line 6: {LEAKY_MESSAGE}"
    assert result["locations"][0]["properties"] == {"cell": 4, "line": 6, "column": 5}
    github = run_tool("torchleak", "--format", "github", "train.ipynb", cwd=tmp_path).stdout
    assert github == f"::warning file=train.ipynb,title=TLK101::cell 4, line 6: {LEAKY_MESSAGE}\n"


def test_directories_include_notebooks_but_not_checkpoints(tmp_path: Path) -> None:
    _notebook(tmp_path / "train.ipynb", *TRAINING)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    _notebook(tmp_path / ".ipynb_checkpoints" / "train-checkpoint.ipynb", *TRAINING)
    result = run_tool("torchleak", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in findings(result.stdout)] == ["./train.ipynb"]


def test_noqa_in_a_cell(tmp_path: Path) -> None:
    _notebook(tmp_path / "n.ipynb", ("code", "total = 0\nfor x in loader:\n    loss = model(x).sum()\n    loss.backward()\n    total += loss  # noqa: TLK101\n"))
    assert run_tool("torchleak", "n.ipynb", cwd=tmp_path).stdout == ""


def test_syntax_error_is_located_in_its_cell(tmp_path: Path) -> None:
    _notebook(tmp_path / "bad.ipynb", ("code", "import torch"), ("markdown", "text"), ("code", "x = 1\nfor x in loader\n"))
    result = run_tool("torchleak", "bad.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("bad.ipynb:cell 3:2:16: TLK999 syntax error: ")  # CPython's wording varies
    [error] = json.loads(run_tool("torchleak", "--format", "json", "bad.ipynb", cwd=tmp_path).stdout)["errors"]
    assert (error["cell"], error["line"], error["column"]) == (3, 2, 16)


@pytest.mark.parametrize(
    ("content", "complaint"),
    [("{not json", "cannot read notebook: not JSON"), ('{"nbformat": 3, "worksheets": []}', "no 'cells' list")],
)
def test_files_that_are_not_notebooks_are_errors(tmp_path: Path, content: str, complaint: str) -> None:
    (tmp_path / "broken.ipynb").write_text(content)
    result = run_tool("torchleak", "broken.ipynb", cwd=tmp_path)
    assert result.returncode == 1 and complaint in result.stderr and "Traceback" not in result.stderr


def test_notebooks_in_other_languages_have_nothing_to_lint(tmp_path: Path) -> None:
    _notebook(tmp_path / "r.ipynb", ("code", "for (x in loader) { total <- total + loss }"), language="R")
    result = run_tool("torchleak", "r.ipynb", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_notebook_on_stdin_by_its_display_name(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "train.ipynb", *TRAINING)
    result = run_tool("torchleak", "-", "--stdin-display-name", "train.ipynb", stdin=path.read_text())
    assert result.stdout.startswith("train.ipynb:cell 4:6:5: TLK101")


def test_magics_become_pass_and_keep_blocks_and_line_numbers() -> None:
    from torchleak.notebooks import python_lines

    code = 'for x in loader:\n    %time step(x)\ns = """\n%d items\n"""\n!echo \\\n  more\nh = model?\nmodel??\n'
    assert python_lines(code) == [
        "for x in loader:",
        "    pass",
        's = """',
        "%d items",  # inside a string: text, not a magic
        '"""',
        "pass",
        "",
        "h = model?",  # not valid IPython help syntax either; left for the parser to reject
        "pass",
    ]
    assert python_lines("%%writefile x.py\nprint(1)\n") is None
    assert python_lines("\n%%capture out\nprint(1)\n") == ["", "", "print(1)"]
