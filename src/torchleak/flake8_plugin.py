"""The flake8 adapter: no analysis here, and nothing that can raise into flake8's run.

The closest ``pyproject.toml`` with a ``[tool.torchleak]`` table to each file applies here as it
does in the ``torchleak`` command, so that the editor (flake8) and CI agree; what is given to
flake8 wins, key by key as on the command line: ``--torchleak-model-names`` (and the other two)
replace the table's key; a TLK code named in flake8's ``select`` or ``extend-select`` replaces the
table's ``select`` and ``extend-select``, one named in its ``ignore`` or ``extend-ignore`` the
table's ``ignore``; flake8's ``per-file-ignores`` replaces the table's. ``--isolated``
ignores the table.

The file's imports of its project's own modules are followed as in the command (the project
index, with the same ``.torchleak_cache`` or ``cache-dir``); ``TORCHLEAK_NO_CACHE=1`` turns the
cache off.
"""

from __future__ import annotations

import argparse
import ast
import logging
import os
import sys
from dataclasses import replace
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Optional

from torchleak import __version__
from torchleak.analysis.settings import Origin, Settings
from torchleak.engine import ALL_CODES, DEFAULT_SELECT, NOTICE_CODE, check_source, is_selected, notice_selected

LOG = logging.getLogger(__name__)


class Flake8Plugin:
    name: ClassVar[str] = "torchleak"
    version: ClassVar[str] = __version__
    #: Set by ``parse_options``: False when flake8's --select/--ignore turn off every TLK code.
    enabled: ClassVar[bool] = True
    settings: ClassVar[Settings] = Settings()
    #: TLK900 only when named explicitly (``--extend-select TLK900``), as bugbear does for B9.
    notices: ClassVar[bool] = False

    # flake8 chooses a plugin's inputs by parameter name: ``tree`` makes this a per-file plugin
    # that receives the ast flake8 already parsed, so files we skip cost no parse at all.
    def __init__(self, tree: ast.AST, lines: list[str], filename: str = "stdin") -> None:
        self._tree = tree
        self._lines = lines
        self._filename = filename

    #: What flake8 was given: the three name lists (None: not given), and whether its own
    #: options decide which TLK codes run and which files ignore them.
    given_names: ClassVar[dict[str, Optional[tuple[str, ...]]]] = {}
    flake8_selects_codes: ClassVar[bool] = False
    flake8_ignores_codes: ClassVar[bool] = False
    flake8_per_file_ignores: ClassVar[bool] = False
    isolated: ClassVar[bool] = False
    stdin_display_name: ClassVar[str] = "stdin"

    @classmethod
    def add_options(cls, manager: Any) -> None:
        # The "not analysed" notice is opt-in: `flake8 --extend-select TLK900`.
        manager.extend_default_ignore([NOTICE_CODE])
        for option, what in (
            ("model-names", "extra callables that run a model (their results are graph-attached)"),
            ("loss-names", "extra callables that compute a loss"),
            ("per-batch-methods", "extra methods called once per batch, like training_step"),
        ):
            manager.add_option(
                f"--torchleak-{option}",
                default="",
                parse_from_config=True,
                comma_separated_list=True,
                help=f"torchleak: {what}, comma-separated",
            )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.given_names = {
            key: tuple(value) if value else None
            for key in ("model_names", "loss_names", "per_batch_methods")
            for value in [getattr(options, f"torchleak_{key}", None)]
        }
        names = {key: frozenset(value or ()) for key, value in cls.given_names.items()}
        cls.settings = Settings(names["model_names"], names["loss_names"], names["per_batch_methods"])
        cls.enabled = _any_code_selected(options)
        selected = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        cls.notices = notice_selected(selected)
        ignored = [*(getattr(options, "ignore", None) or ()), *(getattr(options, "extend_ignore", None) or ())]
        cls.flake8_selects_codes = any(_names_tlk(code) for code in selected)
        cls.flake8_ignores_codes = any(_names_tlk(code) for code in ignored)
        cls.flake8_per_file_ignores = bool(getattr(options, "per_file_ignores", None))
        # flake8 consumes --isolated before the options reach plugins: look at the command too.
        cls.isolated = bool(getattr(options, "isolated", False)) or "--isolated" in sys.argv[1:]
        cls.stdin_display_name = getattr(options, "stdin_display_name", None) or "stdin"

    def run(self) -> Iterator[tuple[int, int, str, type[Flake8Plugin]]]:
        if not self.enabled:
            return
        try:
            table = None if self.isolated else _table_for(self._filename, self.stdin_display_name)
            keep = _Filter(self, table) if table is not None else None
            if keep is not None and keep.excluded:
                return
            settings = keep.settings if keep is not None else self.settings
            if self._filename not in ("-", "stdin") or self.stdin_display_name != "stdin":
                path = self.stdin_display_name if self._filename in ("-", "stdin") else self._filename
                cache_dir = table[1].cache_dir if table is not None else None
                settings = replace(settings, origin=Origin(path, cache_dir))
            # flake8 filters codes itself (select, ignore, per-file-ignores, noqa), so ask for all.
            result = check_source("".join(self._lines), select=ALL_CODES, tree=self._tree, settings=settings)
        except Exception:  # check_source never raises; this guards flake8 against our bugs anyway
            return
        for finding in result.findings:
            if finding.code == NOTICE_CODE and not self.notices:
                continue
            if keep is not None and not keep.reports(finding.code):
                continue
            yield finding.line, finding.column, finding.text, type(self)


def _names_tlk(code: str) -> bool:
    code = code.strip().upper()
    return bool(code) and ("TLK".startswith(code) or code.startswith("TLK"))


def _table_for(filename: str, stdin_display_name: str) -> Any:
    """The configuration for ``filename`` (its closest ``[tool.torchleak]``), or None."""
    from torchleak.config import ConfigError, find_from, load_cached

    if filename in ("-", "stdin") or filename == stdin_display_name == "stdin":
        directory = os.getcwd()
    else:
        directory = os.path.dirname(os.path.abspath(filename))
    try:
        path = find_from(directory)
        return None if path is None else (filename, load_cached(path))
    except ConfigError as error:  # flake8 has no way to report it: say so in its log, use flake8's own settings
        LOG.warning("torchleak: %s", error)
        return None


class _Filter:
    """What ``[tool.torchleak]`` decides for one file, where flake8 was not told otherwise."""

    def __init__(self, plugin: Flake8Plugin, table: Any) -> None:
        from torchleak.discovery import Exclusions, excluded_by_name

        filename, config = table
        root = str(config.root)
        given = plugin.given_names

        def names(key: str) -> frozenset[str]:
            value = given.get(key)
            return frozenset(value if value is not None else getattr(config, key) or ())

        self.settings = Settings(
            model_names=names("model_names"), loss_names=names("loss_names"), per_batch_methods=names("per_batch_methods")
        )
        # flake8's own --exclude handles its defaults; the table's patterns are applied here.
        self.excluded = bool(config.exclude) and excluded_by_name(filename, Exclusions(tuple(config.exclude), root), defaults=False)
        self.select: Optional[Sequence[str]] = None
        self.ignore: tuple[str, ...] = ()
        # As on the command line, each option given replaces the key of the same name.
        if not plugin.flake8_selects_codes:
            self.select = tuple(config.select if config.select is not None else DEFAULT_SELECT) + tuple(config.extend_select or ())
        if not plugin.flake8_ignores_codes:
            self.ignore = tuple(config.ignore or ())
        if not plugin.flake8_per_file_ignores and config.per_file_ignores:
            for pattern, codes in config.per_file_ignores:
                if Exclusions((pattern,), root).matches(filename):
                    self.ignore += tuple(codes)

    def reports(self, code: str) -> bool:
        if code == NOTICE_CODE:  # opt-in under flake8: flake8's --extend-select TLK900 decides
            return is_selected(code, (code,), self.ignore)
        return is_selected(code, self.select if self.select is not None else (code,), self.ignore)


def _any_code_selected(options: argparse.Namespace) -> bool:
    """Ask flake8's own decision engine whether any TLK code can be reported in this run."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        return any(engine.decision_for(code) is Decision.Selected for code in ALL_CODES)
    except Exception:  # an older or newer flake8 without this API: stay enabled
        return True
