"""Record torch-preflight's findings on the leak zoo in tests/zoo/peer_results.json.

torch-preflight is installed apart from torchleak (it is not a dependency), for example::

    python3 -m venv /tmp/peervenv && /tmp/peervenv/bin/pip install torch-preflight==0.5.0
    python scripts/score_peer.py --torch-preflight /tmp/peervenv/bin/torch-preflight

or, from a JSON report made elsewhere with ``torch-preflight check -f json -j 1 tests/zoo``::

    python scripts/score_peer.py --peer-json report.json --version 0.5.0

Its memory rules are mapped to our codes where they mean the same thing: TG001 ("tensor
stored with its autograd graph still attached") on an accumulation (``total += x``,
``total = total + x``) is TLK101, on a container (``.append``, ``d[k] = x``, ...) TLK102.
TG002 (a model evaluated without no_grad) is a memory finding on the model call, with no
line-level equivalent: it counts towards the case-level figures only. Other rules (data
loading, seeding, convergence) are recorded but are not memory findings.
``scripts/score_zoo.py`` reads the file, so the comparison needs no peer installed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
OUTPUT = ZOO / "peer_results.json"
TOOL = "torch-preflight"
COMMAND = "torch-preflight check -f json -j 1 tests/zoo"
MEMORY_RULES = frozenset({"TG001", "TG002"})
MAPPING = {
    "TG001 on `x += v` or `x = x + v`": "TLK101",
    "TG001 on `.append(v)`, `d[k] = v` and other containers": "TLK102",
}

#: TG001's message starts with the statement it is about, in backquotes: `total += ...`.
STATEMENT = re.compile(r"^`([^`]*)`")
ACCUMULATION = re.compile(r"\+=|^\s*([\w.\[\]\"']+)\s*=\s*\1\s*\+")


def our_code(diagnostic: dict[str, Any]) -> Optional[str]:
    """The torchleak code a torch-preflight diagnostic corresponds to, if any."""
    if diagnostic["code"] != "TG001":
        return None
    statement = STATEMENT.match(diagnostic["message"])
    if statement and ACCUMULATION.search(statement.group(1)):
        return "TLK101"
    return "TLK102"


def convert(report: dict[str, Any], version: str, zoo: Path = ZOO) -> dict[str, Any]:
    """peer_results.json's content from torch-preflight's JSON report on the zoo."""
    cases: dict[str, list[dict[str, Any]]] = {path.name: [] for path in sorted(zoo.glob("*.py"))}
    for diagnostic in report["diagnostics"]:
        name = Path(diagnostic["path"]).name
        if name not in cases:
            continue
        cases[name].append(
            {
                "line": diagnostic["line"],
                "column": diagnostic["column"],
                "peer_code": diagnostic["code"],
                "severity": diagnostic["severity"],
                "code": our_code(diagnostic),
                "memory": diagnostic["code"] in MEMORY_RULES,
                "message": diagnostic["message"],
            }
        )
    for findings in cases.values():
        findings.sort(key=lambda f: (f["line"], f["column"], f["peer_code"]))
    return {
        "tool": TOOL,
        "version": version,
        "command": COMMAND,
        "note": "Recorded by scripts/score_peer.py; read by scripts/score_zoo.py.",
        "mapping": MAPPING,
        "failures": [Path(str(f)).name for f in report.get("failures", [])],
        "cases": cases,
    }


def run_peer(executable: str) -> tuple[dict[str, Any], str]:
    """Run torch-preflight on the zoo (from the repository root, so paths stay relative)."""
    shown = subprocess.run([executable, "--version"], capture_output=True, text=True, check=True)
    version = shown.stdout.split()[-1]
    # exit status 1 only means that an error-severity finding was reported
    completed = subprocess.run(
        [executable, "check", "-f", "json", "-j", "1", "--no-color", "tests/zoo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if completed.returncode not in (0, 1):
        raise SystemExit(f"{executable} failed ({completed.returncode}): {completed.stderr}")
    return json.loads(completed.stdout), version


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--torch-preflight", default=TOOL, metavar="EXE", help="the torch-preflight to run")
    parser.add_argument(
        "--peer-json", type=Path, metavar="PATH", help="read this torch-preflight JSON report instead of running it"
    )
    parser.add_argument("--version", help="torch-preflight's version (required with --peer-json)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="default: tests/zoo/peer_results.json")
    args = parser.parse_args(argv)

    if args.peer_json is not None:
        if not args.version:
            parser.error("--peer-json needs --version")
        report, version = json.loads(args.peer_json.read_text(encoding="utf-8")), args.version
    else:
        report, version = run_peer(args.torch_preflight)
    results = convert(report, version)
    args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    found = sum(len(f) for f in results["cases"].values())
    print(f"wrote {args.output}: {found} findings on {len(results['cases'])} files ({TOOL} {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
