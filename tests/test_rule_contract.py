"""Every rule module declares what the docs, the tests and the memory suite are built from."""

from __future__ import annotations

import pkgutil
import re
from string import Formatter

import pytest

import torchleak.rules
from torchleak.docs import REQUIRED_SECTIONS
from torchleak.rule import Rule
from torchleak.rules import ALL_RULES


def test_every_rule_module_is_listed() -> None:
    modules = {name for _, name, _ in pkgutil.iter_modules(torchleak.rules.__path__)}
    listed = {rule.__module__.rsplit(".", 1)[-1] for rule in ALL_RULES}
    assert modules == listed


def test_codes_are_unique_sorted_and_well_formed() -> None:
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(set(codes))
    assert all(re.fullmatch(r"TLK[1-8]\d\d", code) for code in codes)
    assert len({rule.name for rule in ALL_RULES}) == len(ALL_RULES)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_declares_docs_examples_and_a_fix(rule: type[Rule]) -> None:
    doc = rule.__doc__ or ""
    for section in REQUIRED_SECTIONS:
        assert section in doc, f"{rule.code} docstring lacks {section!r}"
    assert rule.flagged, "at least one flagged example"
    assert len(rule.clean) >= 2, "at least two clean look-alikes"
    assert all(example.expected for example in rule.flagged), "every flagged example marks its line"
    assert all(example.why for example in rule.clean)
    assert rule.fixed_example.strip()
    assert rule.harm in ("leak", "peak", "error")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_message_fields_are_filled_by_check(rule: type[Rule]) -> None:
    from torchleak.engine import lint_source

    fields = {name for _, name, _, _ in Formatter().parse(rule.message) if name}
    findings = lint_source(rule.flagged[0].code, select=(rule.code,))
    assert findings
    for finding in findings:
        assert "{" not in finding.message or not fields


def test_the_engine_lists_every_rule_code() -> None:
    from torchleak.engine import RULE_CODES

    assert RULE_CODES == tuple(rule.code for rule in ALL_RULES)


def test_loading_the_flake8_plugin_imports_neither_libcst_nor_the_rules() -> None:
    """flake8 imports the plugin on every run; libcst alone costs about 0.3 s to import."""
    import subprocess
    import sys

    probe = "import sys, torchleak.flake8_plugin; print(sorted(m for m in sys.modules if m.startswith(('libcst', 'torchleak.rules'))))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
