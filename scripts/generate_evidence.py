#!/usr/bin/env python3
"""Run every rule's leak demo, leaky and fixed, and regenerate docs/evidence.md from the runs.

    PYTHONPATH=src python3 scripts/generate_evidence.py
        measure on CPU (and CUDA when present), update docs/evidence/<device>.json and
        docs/evidence.md
    PYTHONPATH=src python3 scripts/generate_evidence.py --device cuda --write-json cuda.json
        on a GPU machine: measure and write the results there only (docs/ is not touched)
    PYTHONPATH=src python3 scripts/generate_evidence.py --cuda-json cuda.json
        here: take the CUDA results measured elsewhere into docs/evidence/cuda.json and
        regenerate docs/evidence.md (add --device cpu to re-measure CPU at the same time)

Measuring needs torch and this repository only. The demos come from the rule modules; where
libcst (which the rule modules import) is missing, as on a bare GPU machine, they are read
from the modules' source with ``ast`` instead.
"""

from __future__ import annotations

import argparse
import ast
import json
import platform
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from torchleak.rule import LeakDemo  # noqa: E402  (needs the sys.path line above)
from torchleak.runtime import Growth, StepRaised, measure_demo  # noqa: E402

EVIDENCE_DIR = ROOT / "docs" / "evidence"
MARKDOWN = ROOT / "docs" / "evidence.md"
ITERS = 20
WARMUP = 2


def load_demos() -> dict[str, LeakDemo]:
    """Each rule's demo by code, imported, or parsed from source when libcst is missing."""
    try:
        from torchleak.rules import ALL_RULES
    except ImportError as error:
        print(f"note: {error}; reading the demos from the rule modules' source", file=sys.stderr)
        return _demos_from_source()
    return {rule.code: rule.demo for rule in ALL_RULES if rule.demo is not None}


def _demos_from_source() -> dict[str, LeakDemo]:
    demos: dict[str, LeakDemo] = {}
    for path in sorted((ROOT / "src" / "torchleak" / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            values: dict[str, ast.expr] = {}
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    if statement.value is not None:
                        values[statement.target.id] = statement.value
                elif isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                    values[statement.targets[0].id] = statement.value
            code, demo = values.get("code"), values.get("demo")
            if not isinstance(code, ast.Constant) or not isinstance(demo, ast.Call):
                continue
            arguments = {keyword.arg: ast.literal_eval(keyword.value) for keyword in demo.keywords if keyword.arg}
            demos[str(code.value)] = LeakDemo(**arguments)
    return demos


def device_name(device: str) -> str:
    import torch

    if device == "cuda":
        return str(torch.cuda.get_device_name())
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _run(demo: LeakDemo, which: str, device: str) -> dict[str, Any]:
    try:
        growth = measure_demo(demo, which, iters=ITERS, warmup=WARMUP, device=device)  # type: ignore[arg-type]
    except StepRaised as raised:
        return {"raised": f"{type(raised.error).__name__}: {raised.error}", "iteration": raised.iteration}
    return _growth_record(growth)


def _growth_record(growth: Growth) -> dict[str, Any]:
    return {
        "bytes_per_iter": growth.bytes_per_iter,
        "heap_bytes_per_iter": growth.heap_bytes_per_iter,
        "peak_bytes": growth.peak_bytes,
        "tensor_deltas": list(growth.tensor_deltas),
        "heap_deltas": list(growth.heap_deltas),
        "step_ms_first": round(growth.step_seconds[0] * 1e3, 2),
        "step_ms_last": round(growth.step_seconds[-1] * 1e3, 2),
    }


def measure_all(device: str, repeats: int) -> dict[str, Any]:
    import torch

    demos = load_demos()
    rules: dict[str, Any] = {}
    for code, demo in sorted(demos.items()):
        entry: dict[str, Any] = {"meter": demo.meter, "expectation": demo.expectation}
        for which in ("leaky", "fixed"):
            runs = [_run(demo, which, device) for _ in range(repeats)]
            print(f"{device} {code} {which}: {_short(runs[0])}", file=sys.stderr)
            entry[which] = {**runs[0], "runs": runs}
        rules[code] = entry
    return {
        "device": device,
        "device_name": device_name(device),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "iters": ITERS,
        "warmup": WARMUP,
        "repeats": repeats,
        "threads": 1,
        "rules": rules,
    }


def _short(run: dict[str, Any]) -> str:
    if "raised" in run:
        return f"raised on iteration {run['iteration']}: {run['raised'][:70]}"
    heap = run["heap_bytes_per_iter"]
    return (
        f"tensor {run['bytes_per_iter']:,.0f} B/iter, heap {heap:,.0f} B/iter, peak {run['peak_bytes']:,} B"
        if heap is not None
        else f"tensor {run['bytes_per_iter']:,.0f} B/iter, peak {run['peak_bytes']:,} B"
    )


def _json(results: Any) -> str:
    """Indented JSON with each list of numbers on one line, so diffs stay readable."""
    text = json.dumps(results, indent=1)
    numbers = re.compile(r"\[\n\s*((?:-?[\d.]+,\n\s*)*-?[\d.]+)\n\s*\]")
    return numbers.sub(lambda match: "[" + " ".join(match.group(1).split()) + "]", text) + "\n"


# --- Markdown ---------------------------------------------------------------------------------


def _bytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _repeatable(variant: dict[str, Any]) -> str:
    """How far the repeats agree: growth to the byte? the peak? the heap within its noise?"""
    runs = variant["runs"]
    if "raised" in runs[0]:
        same = all(run.get("raised") == runs[0]["raised"] and run.get("iteration") == runs[0]["iteration"] for run in runs)
        return "same error" if same else "no"
    if any("raised" in run for run in runs):
        return "no"
    words = ["exact" if all(run["tensor_deltas"] == runs[0]["tensor_deltas"] for run in runs) else "growth varies"]
    peaks = [run["peak_bytes"] for run in runs]
    if max(peaks) != min(peaks):
        words.append(f"peak varies by {max(peaks) - min(peaks):,} B")
    heaps = [run["heap_bytes_per_iter"] for run in runs if run["heap_bytes_per_iter"] is not None]
    if len(heaps) > 1:
        words.append(f"heap ±{(max(heaps) - min(heaps)) / 2:,.0f}")
    return ", ".join(words)


def _cell(variant: dict[str, Any], key: str) -> str:
    if "raised" in variant:
        return f"raises (iteration {variant['iteration']})" if key == "bytes_per_iter" else "—"
    return _bytes(variant[key])


def _steps(variant: dict[str, Any]) -> str:
    if "raised" in variant:
        return "—"
    return f"{variant['step_ms_first']:.1f} → {variant['step_ms_last']:.1f}"


def render(cpu: dict[str, Any], cuda: dict[str, Any] | None) -> str:
    lines = [
        "# Measured evidence",
        "",
        "<!-- Generated by scripts/generate_evidence.py from real runs; do not edit. -->",
        "",
        "Every rule carries a runnable demonstration (`LeakDemo` in its module): a tiny model, a",
        "leaky step and its fixed version. Each step below ran after its setup for "
        f"{cpu['warmup']} warm-up and {cpu['iters']} measured iterations, "
        f"{cpu['repeats']} times each, on one thread, through `torchleak.runtime.measure_demo`.",
        "",
        "* **tensor B/iter**: tensor memory held per iteration, exact (CPU: the allocator's running",
        "  total; CUDA: `torch.cuda.memory_allocated()`).",
        "* **heap B/iter**: host heap per iteration (glibc `mallinfo2`); on CPU it includes tensor",
        "  storage. Noise about ±100 B/iter averaged over 20 iterations.",
        "* **peak**: highest tensor memory during the measured iterations, above the level before",
        "  the warm-up.",
        "* **step ms**: wall time of the first and last measured step.",
        "",
        "`tests/memory` asserts the leaky figure stated in each rule's `expectation` and that the",
        "fixed step does not grow.",
        "",
        f"## CPU: {cpu['device_name']}, torch {cpu['torch']}, Python {cpu['python']}",
        "",
        "| rule | meter | leaky tensor B/iter | fixed tensor B/iter | leaky heap B/iter | fixed heap B/iter "
        "| peak leaky / fixed B | leaky step ms | repeatable (leaky; fixed) |",
        "|---|---|--:|--:|--:|--:|--:|---|---|",
    ]
    for code, entry in cpu["rules"].items():
        leaky, fixed = entry["leaky"], entry["fixed"]
        peak = f"{_cell(leaky, 'peak_bytes')} / {_cell(fixed, 'peak_bytes')}"
        lines.append(
            f"| {code} | {entry['meter']} | {_cell(leaky, 'bytes_per_iter')} | {_cell(fixed, 'bytes_per_iter')} "
            f"| {_cell(leaky, 'heap_bytes_per_iter')} | {_cell(fixed, 'heap_bytes_per_iter')} | {peak} "
            f"| {_steps(leaky)} | {_repeatable(leaky)}; {_repeatable(fixed)} |"
        )
    lines += ["", "What each leaky demo does, in the words its rule's tests assert:", ""]
    for code, entry in cpu["rules"].items():
        raised = entry["leaky"].get("raised")
        said = f" Raised: `{raised.splitlines()[0][:120]}`." if raised else ""
        lines.append(f"* **{code}** ({entry['meter']}): {entry['expectation'] or '(no expectation stated)'}.{said}")
    lines.append("")
    if cuda is None:
        lines += ["## CUDA", "", "Not yet measured: no GPU was used for these figures.", ""]
    else:
        lines += [
            f"## CUDA: {cuda['device_name']}, torch {cuda['torch']}, Python {cuda['python']}",
            "",
            "| rule | meter | leaky tensor B/iter | fixed tensor B/iter | peak leaky / fixed B "
            "| leaky heap B/iter | leaky step ms | repeatable (leaky; fixed) |",
            "|---|---|--:|--:|--:|--:|---|---|",
        ]
        for code, entry in cuda["rules"].items():
            leaky, fixed = entry["leaky"], entry["fixed"]
            peak = f"{_cell(leaky, 'peak_bytes')} / {_cell(fixed, 'peak_bytes')}"
            lines.append(
                f"| {code} | {entry['meter']} | {_cell(leaky, 'bytes_per_iter')} | {_cell(fixed, 'bytes_per_iter')} "
                f"| {peak} | {_cell(leaky, 'heap_bytes_per_iter')} | {_steps(leaky)} "
                f"| {_repeatable(leaky)}; {_repeatable(fixed)} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", action="append", choices=("cpu", "cuda"),
                        help="measure on this device (repeatable); default: cpu, and cuda when available, "
                        "unless --cuda-json alone is given")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each step, to show repeatability")
    parser.add_argument("--write-json", type=Path, metavar="PATH",
                        help="write the measurements to PATH ({device: results}) and leave docs/ alone")
    parser.add_argument("--cuda-json", type=Path, metavar="PATH",
                        help="CUDA results written elsewhere by --write-json, to merge into the docs")
    args = parser.parse_args(argv)

    devices = args.device
    if devices is None:
        devices = [] if args.cuda_json else ["cpu"]
        if not args.cuda_json:
            import torch

            if torch.cuda.is_available():
                devices.append("cuda")
    if "cuda" in devices:
        import torch

        if not torch.cuda.is_available():
            parser.error("--device cuda: torch sees no CUDA device here")

    measured = {device: measure_all(device, args.repeats) for device in devices}
    if args.write_json:
        args.write_json.write_text(_json(measured), encoding="utf-8")
        print(f"wrote {args.write_json}", file=sys.stderr)
        return 0

    EVIDENCE_DIR.mkdir(parents=True, exist_ok=True)
    if args.cuda_json:
        loaded = json.loads(args.cuda_json.read_text(encoding="utf-8"))
        measured.setdefault("cuda", loaded["cuda"] if "cuda" in loaded else loaded)
    for device, results in measured.items():
        (EVIDENCE_DIR / f"{device}.json").write_text(_json(results), encoding="utf-8")
    cpu_path, cuda_path = EVIDENCE_DIR / "cpu.json", EVIDENCE_DIR / "cuda.json"
    if not cpu_path.exists():
        parser.error("no CPU results yet: run with --device cpu first")
    cpu = json.loads(cpu_path.read_text(encoding="utf-8"))
    cuda = json.loads(cuda_path.read_text(encoding="utf-8")) if cuda_path.exists() else None
    MARKDOWN.write_text(render(cpu, cuda), encoding="utf-8")
    print(f"wrote {MARKDOWN.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
