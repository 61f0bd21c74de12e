"""Unit tests generated from each rule's own flagged and clean examples and its leak demo."""

from __future__ import annotations

import pytest

from torchleak.engine import lint_source
from torchleak.rule import Clean, Flagged, Rule
from torchleak.rules import ALL_RULES


def _examples(kind: str) -> list[object]:
    return [
        pytest.param(rule, example, id=f"{rule.code}-{index}")
        for rule in ALL_RULES
        for index, example in enumerate(getattr(rule, kind))
    ]


@pytest.mark.parametrize(("rule", "example"), _examples("flagged"))
def test_flagged_example_is_reported_on_its_marked_lines(rule: type[Rule], example: Flagged) -> None:
    findings = lint_source(example.code, select=(rule.code,))
    assert {(f.line, f.code) for f in findings} == example.expected, example.note


@pytest.mark.parametrize(("rule", "example"), _examples("flagged"))
def test_flagged_example_reports_no_other_rule(rule: type[Rule], example: Flagged) -> None:
    codes = {f.code for f in lint_source(example.code)}
    assert codes == {code for _, code in example.expected}, example.note


@pytest.mark.parametrize(("rule", "example"), _examples("clean"))
def test_clean_look_alike_is_silent_for_every_rule(rule: type[Rule], example: Clean) -> None:
    assert lint_source(example.code) == [], example.why


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_fixed_example_is_silent(rule: type[Rule]) -> None:
    from textwrap import dedent

    assert lint_source(dedent(rule.fixed_example)) == []


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.demo is not None], ids=lambda rule: rule.code)
def test_leak_demo_is_flagged_with_its_rule_and_its_fix_is_not(rule: type[Rule]) -> None:
    demo = rule.demo
    assert demo is not None
    assert {f.code for f in lint_source(demo.program(demo.leaky))} == {rule.code}
    assert lint_source(demo.program(demo.fixed)) == []
