"""The python-lsp-server adapter: TLK findings as an editor's diagnostics, linted in the server.

pylsp's own flake8 plugin starts a new flake8 process for every change of a document, and that
process imports libcst before it analyses anything (about a quarter of a second). This plugin
runs in the long-lived server instead: libcst is imported once, and an edit re-analyses only the
part of the file it changed (the findings cache, ``.torchleak_cache``). It is found through the
``pylsp`` entry point, like python-lsp-ruff, and is on by default when torchleak is installed in
the server's environment; ``pylsp.plugins.torchleak.enabled = false`` turns it off.

Settings (``pylsp.plugins.torchleak``): ``select``, ``extendSelect``, ``ignore`` (lists of code
prefixes, as on the command line). Whatever is not given comes from the closest
``pyproject.toml`` with a ``[tool.torchleak]`` table, as the ``torchleak`` command finds it.
Nothing here may raise into the server: a failure costs the document its TLK diagnostics only.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any, Optional

import pluggy

from torchleak.engine import SYNTAX_CODE, check_source

LOG = logging.getLogger(__name__)

#: pylsp's marker, made from pluggy (pylsp's own dependency) so that importing this module
#: does not import the server.
hookimpl = pluggy.HookimplMarker("pylsp")

#: LSP's DiagnosticSeverity.Warning: a leak is a defect of the program, not a syntax error.
WARNING = 2
SOURCE = "torchleak"


@hookimpl
def pylsp_settings() -> dict[str, Any]:
    return {"plugins": {"torchleak": {"enabled": True}}}


@hookimpl
def pylsp_lint(workspace: Any, document: Any) -> list[dict[str, Any]]:
    try:
        config = workspace._config
        settings = config.plugin_settings("torchleak", document_path=document.path)
        if flake8_reports_tlk(config.plugin_settings("flake8", document_path=document.path)):
            return []  # the same findings come through flake8 (our flake8 plugin): not twice
    except Exception:  # an older or newer pylsp: the table alone decides
        settings = {}
    try:
        return diagnostics(document.source, document.path, settings)
    except Exception:  # never break the server; the log says why the diagnostics are missing
        LOG.exception("torchleak: could not lint %s", getattr(document, "path", "?"))
        return []


def diagnostics(source: str, path: Optional[str], settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The TLK diagnostics of ``source`` (the editor's unsaved text of the file at ``path``)."""
    from torchleak.cli import Resolver, build_parser

    arguments: list[str] = ["--quiet"]
    for key, flag in (("select", "--select"), ("extendSelect", "--extend-select"), ("ignore", "--ignore")):
        codes = _codes(settings.get(key))
        if codes:
            arguments += [flag, ",".join(codes)]
    name = path or os.path.join(os.getcwd(), "untitled.py")
    options = build_parser().parse_args([*arguments, name])
    resolver = Resolver(options)
    job = resolver.job_for(name)
    if path is not None and resolver.exclusions_for(os.path.dirname(os.path.abspath(path))).matches(path):
        return []
    # The syntax error is pyflakes' and pycodestyle's to report; the cache and the project index
    # work as in the command (``path`` names the file, so its imports are followed).
    select = [code for code in job.select if code != SYNTAX_CODE]
    file_settings = job.for_file(name).settings if path is not None else job.settings
    result = check_source(source, select=select, ignore=(*job.ignore_for(name), SYNTAX_CODE), settings=file_settings, apply_noqa=True)
    lines = source.splitlines()
    return [_diagnostic(finding.line, finding.column, finding.code, finding.message, lines) for finding in result.findings]


def flake8_reports_tlk(flake8: dict[str, Any]) -> bool:
    """pylsp's flake8 plugin is on and runs our flake8 plugin (its ``select`` is unset or names
    a TLK prefix, and its ``ignore`` does not name ``TLK`` itself)."""
    if not flake8.get("enabled"):
        return False
    select = [code.upper() for code in _codes(flake8.get("select"))]
    ignore = [code.upper() for code in _codes(flake8.get("ignore"))]
    if any(code in ("T", "TL", "TLK") for code in ignore):
        return False
    return not select or any(code.startswith("TLK") or "TLK".startswith(code) for code in select)


def _codes(value: object) -> list[str]:
    if isinstance(value, str):
        return [code.strip() for code in value.split(",") if code.strip()]
    if isinstance(value, Sequence):
        return [str(code).strip() for code in value if str(code).strip()]
    return []


def _diagnostic(line: int, column: int, code: str, message: str, lines: Sequence[str]) -> dict[str, Any]:
    """One LSP diagnostic: 0-based lines, characters in UTF-16 code units as LSP counts them by
    default, from the finding's column to the end of its line (a finding has no end)."""
    index = max(line - 1, 0)
    text = lines[index] if index < len(lines) else ""
    start = _utf16(text, column)
    end = max(_utf16(text, len(text.rstrip())), start)
    return {
        "source": SOURCE,
        "code": code,
        "message": f"{code} {message}",
        "severity": WARNING,
        "range": {"start": {"line": index, "character": start}, "end": {"line": index, "character": end}},
    }


def _utf16(text: str, column: int) -> int:
    """The UTF-16 offset of the ``column``-th character (code point) of ``text``."""
    prefix = text[:column]
    return len(prefix) + sum(1 for character in prefix if ord(character) > 0xFFFF)
