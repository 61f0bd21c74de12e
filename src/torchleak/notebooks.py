"""Jupyter notebooks: the Python of their code cells, IPython magics blanked out, and a map back to cells."""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass
from typing import Final, Optional

#: Cell magics whose body is Python (the magic only times, captures or profiles it); the
#: body of any other cell magic (``%%bash``, ``%%writefile`` ...) is not Python and is skipped.
PYTHON_CELL_MAGICS: Final = frozenset({"time", "timeit", "capture", "prun", "debug"})

#: A line IPython rewrites before Python sees it: ``%magic``, ``!shell``, ``?help``,
#: ``files = !ls`` / ``t = %time f()``, and ``obj?`` / ``obj??``.
_MAGIC: Final = re.compile(r"\s*(?:[%!?]|[\w.,\[\] ]+=\s*[%!]|[\w.]+\?\??\s*$)")
_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")


class NotebookError(ValueError):
    """The file is not a notebook torchleak can read (not JSON, not nbformat 4)."""


@dataclass(frozen=True)
class Notebook:
    """The code cells joined into one module, so that the analysis sees the whole notebook."""

    source: str
    #: The (cell, line in cell) of each line of ``source``; cells are numbered from 1 counting
    #: every cell, markdown too, as Jupyter, VS Code and ruff number them.
    lines: tuple[tuple[int, int], ...]


def is_notebook(path: str) -> bool:
    return path.endswith(".ipynb")


def extract(text: str) -> Notebook:
    """Parse nbformat 4 JSON; raises ``NotebookError``. Notebooks in other languages give no code."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not JSON: {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError("not an nbformat 4 notebook (no 'cells' list)")
    if _language(document) not in (None, "python"):
        return Notebook("", ())
    source: list[str] = []
    lines: list[tuple[int, int]] = []
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code = cell.get("source", "")
        code = "".join(code) if isinstance(code, list) else code
        if not isinstance(code, str):
            raise NotebookError(f"cell {number}: 'source' is neither a string nor a list of strings")
        python = python_lines(code)
        if python is None:
            continue
        source.extend(python)
        lines.extend((number, index) for index in range(1, len(python) + 1))
    return Notebook("".join(line + "\n" for line in source), tuple(lines))


def python_lines(code: str) -> Optional[list[str]]:
    """The cell's lines with each IPython-only line replaced, keeping line numbers and blocks.

    A magic line becomes ``pass`` at its indentation (it may be the only statement of a
    block) and its backslash continuations become blank. Returns None for a cell whose
    cell magic runs something other than Python.
    """
    lines = _LINE_BREAK.split(code)
    if lines and lines[-1] == "":
        lines.pop()
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return None
        lines[first] = ""
    in_strings = _lines_inside_strings(code)
    result: list[str] = []
    continued = False
    for number, line in enumerate(lines, start=1):
        if continued:
            result.append("")
        elif number not in in_strings and _MAGIC.match(line):
            result.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            result.append(line)
            continue
        continued = line.endswith("\\")
    return result


def _lines_inside_strings(code: str) -> set[int]:
    """Lines that continue a multi-line string: there a leading ``%`` or ``!`` is text, not a magic."""
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass  # a cell Python cannot tokenize: treat every line on its own
    return inside


def _language(document: dict[str, object]) -> Optional[str]:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(field), str):
            return str(table[field]).lower()
    return None
