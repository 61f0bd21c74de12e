"""Write docs/rules/<code>.md for every rule; with --check, fail if any committed page is stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchleak.docs import harm_label, render, summary
from torchleak.rules import ALL_RULES

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def pages() -> dict[Path, str]:
    index = ["# Rules", "", "| code | name | harm | summary |", "| --- | --- | --- | --- |"]
    result = {}
    for rule in ALL_RULES:
        result[DOCS / f"{rule.code}.md"] = render(rule)
        index.append(f"| [{rule.code}]({rule.code}.md) | `{rule.name}` | {harm_label(rule.harm)} | {summary(rule)} |")
    result[DOCS / "README.md"] = "\n".join(index) + "\n"
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if a page differs from its rule")
    options = parser.parse_args()
    stale = [path for path, text in pages().items() if not path.exists() or path.read_text() != text]
    if options.check:
        for path in stale:
            print(f"stale: {path} (run python scripts/generate_rule_docs.py)")
        return 1 if stale else 0
    DOCS.mkdir(parents=True, exist_ok=True)
    for path, text in pages().items():
        path.write_text(text)
    print(f"wrote {len(pages())} pages to {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
