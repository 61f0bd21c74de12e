"""Render a rule's documentation page from its module: the one source for docs and --explain."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from textwrap import dedent, indent
from typing import Optional

from torchleak.rule import Rule
from torchleak.rules import RULES_BY_CODE

#: Sections every rule docstring must have, in Ruff's order.
REQUIRED_SECTIONS = ("## What it does", "## Why is this bad?", "## Known problems")
HARM_WORDS = {
    "leak": "Leak: memory grows every iteration.",
    "peak": "Peak: raises peak memory by one graph; does not grow.",
    "error": "Crash or leak: the second backward fails; without backward in the loop, memory grows.",
}


#: The one short wording of each harm: ``--list-rules``, the rule index, SARIF tags and the README.
HARM_LABELS = {"leak": "leak", "peak": "peak", "error": "crash or leak"}

#: The rule pages (docs/rules) and evidence.md ship inside the package (pyproject.toml's
#: force-include); a source checkout or an editable install reads them from docs/.
_SHIPPED = Path(__file__).resolve().parent / "_docs"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "docs"


def harm_label(harm: str) -> str:
    return HARM_LABELS.get(harm, harm)


def rule_page(code: str) -> Optional[Path]:
    """The page of ``code`` as installed with torchleak, or None (TLK900 and TLK999 have none)."""
    return _shipped(f"{code}.md") if code in RULES_BY_CODE else None


def _shipped(name: str) -> Optional[Path]:
    for docs in (_SHIPPED, _CHECKOUT):
        page = docs / "rules" / name
        if page.is_file():
            return page
    return None


def rule_url(code: str) -> Optional[str]:
    """A ``file:`` URI of the rule's page shipped with the package (JSON ``url``, SARIF
    ``helpUri``); for a code without a page (TLK900), the rule index."""
    page = rule_page(code) or _shipped("README.md")
    return page.as_uri() if page is not None else None


#: The generator's note at the top of each page: for the docs' editors, not for readers.
_EDITOR_NOTE = re.compile(r"^<!--.*?-->\n+", re.MULTILINE | re.DOTALL)


def rule_page_text(code: str) -> str:
    """The full page of a rule as readers see it (``--explain``, SARIF help): the shipped file,
    or rendered from the rule when it is missing, without the generator's HTML comment."""
    page = rule_page(code)
    text = page.read_text(encoding="utf-8") if page is not None else render(RULES_BY_CODE[code])
    return _EDITOR_NOTE.sub("", text, count=1)


def lookup(query: str) -> Optional[str]:
    """The code for a code or a rule name (``TLK101``, ``tlk101``, ``accumulated-loss``), or None."""
    from torchleak.engine import NOTICE_CODE, SYNTAX_CODE

    wanted = query.strip()
    names = {rule.name: rule.code for rule in RULES_BY_CODE.values()}
    names.update({"not-analysed": NOTICE_CODE, "syntax-error": SYNTAX_CODE})
    if wanted.upper() in (*RULES_BY_CODE, NOTICE_CODE, SYNTAX_CODE):
        return wanted.upper()
    return names.get(wanted.lower().replace("_", "-"))


_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")


def explain(code: str, terminal: bool = False) -> str:
    """``torchleak --explain``: the rule's page; in a terminal, its relative links become the
    paths of the files they name, where those exist."""
    from torchleak.formats import NOTICE_DESCRIPTION, SYNTAX_DESCRIPTION, rule_name

    if code not in RULES_BY_CODE:
        description = NOTICE_DESCRIPTION if code.endswith("900") else SYNTAX_DESCRIPTION
        return f"# {code} `{rule_name(code)}`\n\n{description}\n"
    text = rule_page_text(code)
    page = rule_page(code)
    if not terminal or page is None:
        return text

    def resolve(match: re.Match[str]) -> str:
        target = (page.parent / match.group(1)).resolve()
        return f"]({target})" if target.exists() else match.group(0)

    return _LINK.sub(resolve, text)


def summary(rule: type[Rule]) -> str:
    """The first paragraph of the rule's "What it does" section, on one line."""
    paragraph = (rule.__doc__ or "").split("## What it does", 1)[-1].strip().split("\n\n")[0]
    return " ".join(paragraph.split())


def _code_block(source: str) -> str:
    return "```python\n" + dedent(source).strip("\n") + "\n```"


def render(rule: type[Rule]) -> str:
    """The Markdown page for ``rule`` (also printed by ``torchleak --explain``)."""
    from torchleak.engine import lint_source

    first = rule.flagged[0]
    emitted = lint_source(first.code, select=(rule.code,))
    parts = [
        f"# {rule.code} `{rule.name}`",
        "<!-- Generated from src/torchleak/rules by scripts/generate_rule_docs.py; do not edit. -->",
        f"**{HARM_WORDS[rule.harm]}**",
        "Message, as emitted on the first example below:\n\n"
        + "\n".join(f"> `{f.line}:{f.column + 1}: {f.code} {f.message}`" for f in emitted),
        inspect.cleandoc(rule.__doc__ or ""),
        "## Example\n\n" + _code_block(first.code),
        "## Use instead\n\n" + _code_block(rule.fixed_example),
        "## Automatic fix\n\n" + _autofix(rule),
        "## Measured\n\n" + _measured(rule),
    ]
    if len(rule.flagged) > 1:
        parts.append(
            "## Also reported\n\n"
            + "\n\n".join(f"{example.note}:\n\n{_code_block(example.code)}" for example in rule.flagged[1:])
        )
    parts.append(
        "## Stays silent on\n\n"
        + "\n\n".join(f"- {example.why}:\n\n{indent(_code_block(example.code), '  ')}" for example in rule.clean)
    )
    return "\n\n".join(parts) + "\n"


FIX_WORDS = {
    "safe": "**Safe fix**: `torchleak --fix` applies it.",
    "unsafe": "**Unsafe fix**: applied only with `torchleak --fix --unsafe-fixes` (`--diff` shows it first).",
    "none": "**No automatic fix.**",
}


def _autofix(rule: type[Rule]) -> str:
    """The fix's safety and rationale, and what it does to the first example (found by running it)."""
    from difflib import unified_diff

    from torchleak.fix import fix_source

    parts = [FIX_WORDS[rule.fix_safety]]
    if rule.fix_rationale:
        parts.append(rule.fix_rationale)
    if rule.fix_safety == "none":
        return "\n\n".join(parts)
    before = rule.flagged[0].code
    outcome = fix_source(before, select=(rule.code,), unsafe=True)
    if not outcome.applied:
        parts.append("The first example above has no automatic fix.")
        return "\n\n".join(parts)
    safety = ", ".join(sorted({fix.safety for _, fix in outcome.applied}))
    reasons = "; ".join(fix.reason for _, fix in outcome.applied if fix.reason)
    lines = [
        line.rstrip("\n")
        for line in unified_diff(before.splitlines(True), outcome.source.splitlines(True), n=1)
        if not line.startswith(("---", "+++", "@@"))
    ]
    parts.append(
        f"On the first example above it makes this change ({safety} there: {reasons}):\n\n"
        + "```diff\n" + "\n".join(lines) + "\n```"
    )
    return "\n\n".join(parts)


def _measured(rule: type[Rule]) -> str:
    demo = rule.demo
    if demo is None:
        return "No leak demonstration yet."
    lines = [
        f"The leak demonstration (meter: {demo.meter}) {demo.expectation}." if demo.expectation else f"Meter: {demo.meter}.",
        "Figures for every rule, on CPU and CUDA, are in [evidence.md](../evidence.md); "
        "`tests/memory` asserts them.",
        "",
        "Leaky step:",
        "",
        _code_block(demo.leaky),
        "",
        "Fixed step:",
        "",
        _code_block(demo.fixed),
    ]
    return "\n".join(lines)
