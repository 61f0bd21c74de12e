"""The flake8 adapter: no analysis here, and nothing that can raise into flake8's run."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from typing import Any, ClassVar

from torchleak import __version__
from torchleak.analysis.settings import Settings
from torchleak.engine import ALL_CODES, NOTICE_CODE, check_source, notice_selected


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
    def __init__(self, tree: ast.AST, lines: list[str]) -> None:
        self._tree = tree
        self._lines = lines

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
        cls.settings = Settings(
            model_names=frozenset(getattr(options, "torchleak_model_names", None) or ()),
            loss_names=frozenset(getattr(options, "torchleak_loss_names", None) or ()),
            per_batch_methods=frozenset(getattr(options, "torchleak_per_batch_methods", None) or ()),
        )
        cls.enabled = _any_code_selected(options)
        selected = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        cls.notices = notice_selected(selected)

    def run(self) -> Iterator[tuple[int, int, str, type[Flake8Plugin]]]:
        if not self.enabled:
            return
        try:
            # flake8 filters codes itself (select, ignore, per-file-ignores, noqa), so ask for all.
            result = check_source("".join(self._lines), select=ALL_CODES, tree=self._tree, settings=self.settings)
        except Exception:  # check_source never raises; this guards flake8 against our bugs anyway
            return
        for finding in result.findings:
            if finding.code == NOTICE_CODE and not self.notices:
                continue
            yield finding.line, finding.column, finding.text, type(self)


def _any_code_selected(options: argparse.Namespace) -> bool:
    """Ask flake8's own decision engine whether any TLK code can be reported in this run."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        return any(engine.decision_for(code) is Decision.Selected for code in ALL_CODES)
    except Exception:  # an older or newer flake8 without this API: stay enabled
        return True
