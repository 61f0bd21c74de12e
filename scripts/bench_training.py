"""The training-code half of ``scripts/benchmark.py``: where users lint, every file passes the
pre-filter, so the figures that matter are the cost of one dense file, in the editor and cold.

Each target compares two measurements taken side by side: in every repeat both sides run one
after the other, and the published ratio is the median of the per-repeat ratios (on a shared
machine the load changes between repeats, far less within one). CPU seconds (user + system of
the measured process) are reported next to wall seconds: other users of the machine slow the
wall clock much more than they slow a process's own CPU time.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

#: One measurement: wall seconds and CPU seconds.
Sample = tuple[float, float]


@dataclass
class Target:
    """One target of the training-code issue: ``ours`` against ``baseline``, at most ``limit``x."""

    key: str
    title: str
    ours: str
    baseline: str
    limit: float
    #: ``ratio``: ours / baseline; ``extra``: ours - baseline, in seconds (``limit`` is seconds).
    mode: str = "ratio"
    ours_samples: list[Sample] = field(default_factory=list)
    baseline_samples: list[Sample] = field(default_factory=list)
    note: str = ""

    def per_repeat(self, index: int) -> list[float]:
        pairs = zip(self.ours_samples, self.baseline_samples)
        if self.mode == "ratio":
            return [ours[index] / base[index] for ours, base in pairs if base[index] > 0]
        return [ours[index] - base[index] for ours, base in pairs]

    def figure(self, index: int) -> Optional[float]:
        values = self.per_repeat(index)
        return statistics.median(values) if values else None

    def verdict(self) -> str:
        wall = self.figure(0)
        if wall is None:
            return "not measured"
        return "met" if wall <= self.limit else "NOT met"


def median(samples: Sequence[Sample], index: int) -> Optional[float]:
    return statistics.median(sample[index] for sample in samples) if samples else None


# --------------------------------------------------------------------------- in-process workers

#: Times one callable in a fresh interpreter: the median of ``repeats`` runs after one warm-up.
COLD_WORKER = textwrap.dedent("""
    import gc, json, statistics, sys, time
    what, path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
    source = open(path, encoding="utf-8").read()
    if what == "engine":
        from torchleak.engine import check_source
        run = lambda: check_source(source)
    else:
        import libcst
        if what == "parse":
            run = lambda: libcst.parse_module(source)
        else:  # "parse-paused": the same with the cyclic collector paused, as the engine runs it
            def run():
                gc.disable()
                try:
                    return libcst.parse_module(source)
                finally:
                    gc.enable()
    run()
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    print(json.dumps([statistics.median(walls), statistics.median(cpus)]))
""")

#: Seconds per phase of ``check_source`` (its ``phases`` argument), and the analysis walks.
PHASE_WORKER = textwrap.dedent("""
    import json, statistics, sys, time
    t0 = time.perf_counter()
    import torchleak.engine as engine
    imported = time.perf_counter() - t0
    t0 = time.perf_counter()
    import torchleak.analysis.flow as flow, torchleak.rules
    imported_analysis = time.perf_counter() - t0
    from torchleak.cli import decode
    paths, repeats = sys.argv[1].split("\\n"), int(sys.argv[2])
    sources = [decode(open(p, "rb").read()) for p in paths]
    walks = []
    original_walk = flow._walk
    def counted_walk(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original_walk(*args, **kwargs)
        finally:
            walks.append(time.perf_counter() - start)
    flow._walk = counted_walk
    def one_pass():
        phases = {}
        walks.clear()
        for source in sources:
            engine.check_source(source, phases=phases)
        phases["analysis walks: count"] = len(walks)
        return phases
    first = one_pass()          # pays the imports of libcst, the analysis and the rules
    runs = [one_pass() for _ in range(repeats)]
    steady = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in first}
    print(json.dumps({"import torchleak.engine": imported, "import libcst, analysis, rules": imported_analysis,
                      "first": first, "steady": steady}))
""")


def in_process(python: str, what: str, path: Path, repeats: int, env: dict[str, str]) -> Sample:
    proc = subprocess.run([python, "-c", COLD_WORKER, what, str(path), str(repeats)],
                          capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}")
    wall, cpu = json.loads(proc.stdout.strip().splitlines()[-1])
    return wall, cpu


def phases(python: str, paths: Sequence[Path], repeats: int, env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run([python, "-c", PHASE_WORKER, "\n".join(map(str, paths)), str(repeats)],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-2000:])
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def timed(argv: Sequence[str], env: dict[str, str], cwd: Path, stdin: Optional[bytes] = None,
          timeout: float = 1800) -> tuple[Sample, str]:
    """Run a command; its wall and CPU seconds (children's rusage) and its stdout."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(list(argv), input=stdin, capture_output=True, env=env, cwd=cwd, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv[:4])} ...: exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
    return (wall, cpu), proc.stdout.decode(errors="replace")


# --------------------------------------------------------------------------- the editor (LSP)


class Editor:
    """A python-lsp-server with its flake8 plugin on (and torchleak's own, or not), driven as an
    editor drives it."""

    def __init__(self, root: Path, flake8: str, select: str, in_process: bool = False) -> None:
        """``in_process``: torchleak's own pylsp plugin on (it is off otherwise: the server runs
        in the torchleak environment, where that plugin is installed)."""
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from test_lsp import LanguageServer  # type: ignore[import-not-found]  # the tests' client

        self.server = LanguageServer(root)
        self.server.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                           "workspaceFolders": None})
        self.server.notify("initialized", {})
        plugins = {"flake8": {"enabled": True, "executable": flake8, "select": select.split(",")},
                   "torchleak": {"enabled": in_process},
                   **{name: {"enabled": False} for name in ("pycodestyle", "pyflakes", "mccabe", "pylint")}}
        self.server.notify("workspace/didChangeConfiguration", {"settings": {"pylsp": {"plugins": plugins}}})
        self.version = 0

    def _diagnostics(self, uri: str) -> list[dict[str, object]]:
        message = self.server.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        diagnostics: list[dict[str, object]] = message["params"]["diagnostics"]
        return diagnostics

    def open(self, path: Path) -> list[dict[str, object]]:
        self.version += 1
        self.server.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": self.version, "text": path.read_text()}})
        return self._diagnostics(path.as_uri())

    def change(self, path: Path, text: str) -> tuple[float, list[dict[str, object]]]:
        """Seconds from didChange to the diagnostics it causes (pylsp's debounce included)."""
        self.version += 1
        start = time.perf_counter()
        self.server.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": self.version},
                                                       "contentChanges": [{"text": text}]})
        diagnostics = self._diagnostics(path.as_uri())
        return time.perf_counter() - start, diagnostics

    def close(self) -> None:
        self.server.close()


def edited(source: str, round_: int) -> str:
    """The file after an edit inside one function (a keystroke in a training loop)."""
    marker = "log_every=50"
    assert marker in source
    return source.replace(marker, f"log_every={50 + round_ % 7 + 1}", 1)


# --------------------------------------------------------------------------- the run


@dataclass
class Setup:
    python: str                     # the torchleak environment's python
    torchleak: Optional[str]
    baseline_flake8: Optional[str]  # flake8 without torchleak
    ruff: Optional[str]
    training_file: str              # its text
    small_training_file: str        # 500 lines, for the editor
    corpus: Sequence[Path]
    sample: Sequence[Path]
    repeat: int
    in_process_repeats: int
    jobs: int
    wanted: Callable[[str], bool]


def run_targets(setup: Setup, workdir: Path, log: Callable[[str], None]) -> tuple[list[Target], list[str]]:
    """Measure every training-code target ``setup.repeat`` times, interleaved."""
    env = {**os.environ, "CI": "1"}
    cold = {**env, "TORCHLEAK_NO_CACHE": "1"}
    notes: list[str] = []
    train = workdir / "training" / "typical_training.py"
    train.parent.mkdir(parents=True, exist_ok=True)
    train.write_text(setup.training_file, encoding="utf-8")
    base = setup.baseline_flake8
    flake8 = [setup.python, "-m", "flake8", "--isolated"]
    targets: list[Target] = []

    def target(key: str, *args: object, **kwargs: object) -> Optional[Target]:
        if not setup.wanted(key):
            return None
        made = Target(key, *args, **kwargs)  # type: ignore[arg-type]
        targets.append(made)
        return made

    parse = target("cold-parse", "Cold, dense training file: torchleak's whole cost vs libcst's bare `parse_module`",
                   "`check_source` (ast.parse, pre-filter, libcst parse, analysis, rules, positions)",
                   "`libcst.parse_module` of the same file", 1.3)
    parse_paused = target("cold-parse-paused", "The same, against `parse_module` with the cyclic collector paused as the engine pauses it",
                          "`check_source`", "`libcst.parse_module`, collector paused", 1.3)
    plugin_cold = target("cold-flake8", "Cold, dense training file: `flake8 --select E999,TLK` vs plain flake8",
                         "`flake8 --select E999,TLK FILE`, `TORCHLEAK_NO_CACHE=1`",
                         "`flake8 --select E999 FILE`, flake8 without torchleak", 2.0) if base else None
    plugin_warm = target("warm-flake8", "Warm, after a one-function edit: `flake8 --select E999,TLK` vs plain flake8",
                         "`flake8 --select E999,TLK FILE` after linting it once, then an edit in one function",
                         "`flake8 --select E999 FILE` on the edited file, flake8 without torchleak", 1.25) if base else None
    lsp = target("lsp", "Editor: didChange round trip through python-lsp-server, 500-line training file (extra seconds)",
                 "pylsp + torchleak's pylsp plugin (in the server) + flake8 without torchleak, `--select E999`",
                 "pylsp + flake8 without torchleak, `--select E999`",
                 0.050, mode="extra") if base else None
    lsp_flake8 = target("lsp-flake8", "Editor, the flake8 route: the same round trip with TLK through pylsp's flake8 plugin (extra seconds)",
                        "pylsp + flake8 `--select E999,TLK` (a flake8 process per change)", "pylsp + flake8 without torchleak, `--select E999`",
                        0.050, mode="extra") if base else None
    corpus_cli = target("corpus-cli", f"Whole pinned corpus: `torchleak` CLI vs `ruff check --select ALL --no-cache` (-j {setup.jobs} / all cores)",
                        f"`torchleak --no-cache --jobs {setup.jobs} FILES`", "`ruff check --select ALL --no-cache --isolated FILES`",
                        1.0) if setup.ruff and setup.torchleak and setup.corpus else None
    library = target("library-plugin", "Library sample: plugin overhead, `flake8 --select TLK` vs plain flake8",
                     f"`flake8 -j {setup.jobs} --select TLK FILES`", f"`flake8 -j {setup.jobs} --select E999 FILES`, flake8 without torchleak",
                     1.1) if base and setup.sample else None

    editors: Optional[tuple[Editor, Editor, Editor]] = None
    # Each editor has its own copy of the file, in a project of its own (a pyproject.toml, as an
    # editor's workspace has a root), so that no side finds the findings another one cached.
    smalls = [workdir / f"editor-{side}" / "train.py" for side in ("in-server", "flake8", "base")]
    if lsp is not None or lsp_flake8 is not None:
        for small in smalls:
            small.parent.mkdir(parents=True, exist_ok=True)
            (small.parent / "pyproject.toml").write_text("[tool.torchleak]\n")
            small.write_text(setup.small_training_file, encoding="utf-8")
        editors = (Editor(smalls[0].parent, base or "flake8", "E999", in_process=True),
                   Editor(smalls[1].parent, shutil.which("flake8", path=str(Path(setup.python).parent)) or "flake8", "E999,TLK"),
                   Editor(smalls[2].parent, base or "flake8", "E999"))
        found = [len(editor.open(small)) for editor, small in zip(editors, smalls)]
        notes.append(f"editor: {found[0]} diagnostics with the in-server plugin on the 500-line file, {found[1]} through flake8, "
                     f"{found[2]} without torchleak")

    corpus_args = [str(p) for p in setup.corpus]
    sample_args = [str(p) for p in setup.sample]
    try:
        for round_ in range(setup.repeat):
            log(f"  training-code targets, repeat {round_ + 1}/{setup.repeat}")
            if parse is not None or parse_paused is not None:
                ours = in_process(setup.python, "engine", train, setup.in_process_repeats, cold)
                if parse is not None:
                    parse.ours_samples.append(ours)
                    parse.baseline_samples.append(in_process(setup.python, "parse", train, setup.in_process_repeats, cold))
                if parse_paused is not None:
                    parse_paused.ours_samples.append(ours)
                    parse_paused.baseline_samples.append(in_process(setup.python, "parse-paused", train, setup.in_process_repeats, cold))
            if plugin_cold is not None and base:
                plugin_cold.ours_samples.append(timed([*flake8, "--select", "E999,TLK", str(train)], cold, train.parent)[0])
                plugin_cold.baseline_samples.append(timed([base, "--isolated", "--select", "E999", str(train)], env, train.parent)[0])
            if plugin_warm is not None and base:
                # The editor's case: the file was linted before (cache on), then one function changed.
                project = workdir / f"warm-{round_}"
                project.mkdir()
                (project / "pyproject.toml").write_text("[tool.torchleak]\n")
                path = project / "train.py"
                path.write_text(setup.training_file, encoding="utf-8")
                timed([*flake8, "--select", "E999,TLK", str(path)], env, project)
                path.write_text(edited(setup.training_file, round_), encoding="utf-8")
                plugin_warm.ours_samples.append(timed([*flake8, "--select", "E999,TLK", str(path)], env, project)[0])
                plugin_warm.baseline_samples.append(timed([base, "--isolated", "--select", "E999", str(path)], env, project)[0])
            if editors is not None:
                text = edited(setup.small_training_file, round_)
                in_server, _ = editors[0].change(smalls[0], text)
                through_flake8, _ = editors[1].change(smalls[1], text)
                base_seconds, _ = editors[2].change(smalls[2], text)
                for row, ours_seconds in ((lsp, in_server), (lsp_flake8, through_flake8)):
                    if row is not None:
                        row.ours_samples.append((ours_seconds, ours_seconds))
                        row.baseline_samples.append((base_seconds, base_seconds))
            if corpus_cli is not None and setup.torchleak and setup.ruff:
                corpus_cli.ours_samples.append(timed([setup.torchleak, "--no-cache", "--jobs", str(setup.jobs), *corpus_args], cold, workdir)[0])
                corpus_cli.baseline_samples.append(timed([setup.ruff, "check", "--select", "ALL", "--no-cache", "--isolated", *corpus_args],
                                                         env, workdir)[0])
            if library is not None and base:
                library.ours_samples.append(timed([*flake8, "-j", str(setup.jobs), "--select", "TLK", *sample_args], cold, workdir)[0])
                library.baseline_samples.append(timed([base, "--isolated", "-j", str(setup.jobs), "--select", "E999", *sample_args],
                                                      env, workdir)[0])
    finally:
        if editors is not None:
            for editor in editors:
                editor.close()
    for row in (lsp, lsp_flake8):
        if row is not None:
            row.note = "wall seconds only (pylsp answers after its 0.5 s debounce, the same on both sides)"
    return targets, notes


def targets_table(targets: Sequence[Target]) -> list[str]:
    lines = ["| target | ours | baseline | ours wall | baseline wall | wall figure | CPU figure | limit | verdict |",
             "|---|---|---|--:|--:|--:|--:|--:|---|"]
    for item in targets:
        unit = "×" if item.mode == "ratio" else " s"
        wall, cpu = item.figure(0), item.figure(1)

        def shown(value: Optional[float]) -> str:
            if value is None:
                return "—"
            return f"{value:.2f}×" if item.mode == "ratio" else f"{value * 1000:+.0f} ms"

        limit = f"≤ {item.limit:.2f}×" if item.mode == "ratio" else f"≤ {item.limit * 1000:.0f} ms"
        ours_wall, base_wall = median(item.ours_samples, 0), median(item.baseline_samples, 0)
        lines.append(
            f"| {item.title} | {item.ours} | {item.baseline} | {_seconds(ours_wall)} | {_seconds(base_wall)} | "
            f"{shown(wall)} | {shown(cpu) if item.mode == 'ratio' else '—'} | {limit} | {item.verdict()} |"
        )
        del unit
    return lines


def targets_detail(targets: Sequence[Target]) -> list[str]:
    out = []
    for item in targets:
        pairs = ", ".join(f"{o[0]:.3f}/{b[0]:.3f}" for o, b in zip(item.ours_samples, item.baseline_samples))
        out.append(f"- **{item.key}**: ours/baseline wall seconds per repeat: {pairs}" + (f"; {item.note}" if item.note else ""))
    return out


def _seconds(value: Optional[float]) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:,.0f} ms" if value < 10 else f"{value:,.1f} s"


def phase_table(training: dict[str, object], corpus: Optional[dict[str, object]], corpus_label: str) -> list[str]:
    """Seconds per phase: the training file (steady state, median) and the corpus sample (sum)."""
    order = ["import torchleak.engine", "import libcst, analysis, rules", "ast.parse", "pre-filter", "libcst parse",
             "analysis walks", "rule queries", "positions, messages, fixes", "noqa"]
    columns = [("typical training file", training)] + ([(corpus_label, corpus)] if corpus else [])
    head = "| phase | " + " | ".join(label for label, _ in columns) + " |"
    lines = [head, "|---|" + "--:|" * len(columns)]
    for name in order:
        cells = []
        for _, data in columns:
            if name.startswith("import"):
                value = data[name]
            else:
                value = data["steady"].get(name)  # type: ignore[attr-defined]
            cells.append("—" if value is None else f"{float(value) * 1000:,.1f} ms")  # type: ignore[arg-type]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    total = []
    for _, data in columns:
        steady = data["steady"]
        total.append(f"{sum(v for k, v in steady.items() if not k.endswith('count')) * 1000:,.1f} ms")  # type: ignore[attr-defined]
    lines.append("| **total, imports excluded** | " + " | ".join(total) + " |")
    walks = [str(int(data["steady"].get("analysis walks: count", 0))) for _, data in columns]  # type: ignore[attr-defined]
    lines.append("| analysis walks made (evidence, then final) | " + " | ".join(walks) + " |")
    return lines


def find_ruff(python: str) -> Optional[str]:
    """ruff from PATH or beside the torchleak environment's python, else from ``RUFF``."""
    candidates = [os.environ.get("RUFF"), shutil.which("ruff"), str(Path(python).with_name("ruff"))]
    return next((c for c in candidates if c and Path(c).exists()), None)


def default_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="torchleak-training-bench-"))
