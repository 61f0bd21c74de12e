"""Time torchleak against the floor (ast.parse), flake8 and its peers on the pinned corpus.

Usage::

    bash ../shared/perf/make_corpus.sh /tmp/perfcorpus
    python scripts/benchmark.py                 # print the side-by-side table
    python scripts/benchmark.py --write         # ... and write docs/performance.md

Every row lints the same kind of input with every tool given the same number of worker
processes (``--jobs``, default: CPU count). The slow peers (TorchFix, torch-preflight) run on
a fixed sample of the corpus (every ``--peer-sample``-th file, default 20), and torchleak's CLI runs on
that same sample as well, so the speed ratio compares identical files. A tool that is not
installed gives a "not available" row instead of an error.

``flake8 --select E999`` without our plugin runs in a separate virtualenv holding only
flake8 (created on first use under the temp dir, same flake8 version), because flake8 runs
every installed plugin whatever ``--select`` says.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import bench_training

REPO = Path(__file__).resolve().parent.parent
CORPUS_PACKAGES = (
    "pytorch-lightning", "accelerate", "pytorch-ignite", "skorch", "timm",
    "torchmetrics", "transformers", "pytorch-tabnet", "poutyne", "torchgeo",
)
DEFAULT_CORPUS = Path("/tmp/perfcorpus")
DEFAULT_PEERS_VENV = Path("/tmp/peers")
TYPICAL_FILE_LINES = 5_000
TYPICAL_FILE_REPEATS = 7
#: Targets kept from earlier work: the CLI against TorchFix, the plugin's overhead on the corpus,
#: the 5,000-line all-training file through the engine.
TARGET_CLI_VS_TORCHFIX = 5.0
TARGET_PLUGIN_OVERHEAD = 0.25
TARGET_TYPICAL_FILE_MS = 500.0
#: The training-code targets (bench_training.py), and the phase profile: rows of their own.
TRAINING_KEYS = ("cold-parse", "cold-parse-paused", "cold-flake8", "warm-flake8", "lsp", "lsp-flake8", "corpus-cli", "library-plugin", "phases")

FINDING_LINE = re.compile(r":\d+:\d+: (?:TLK|TOR)\d+")


@dataclass
class Row:
    key: str
    title: str
    command: str = ""
    jobs: Optional[int] = None
    files: int = 0
    lines: int = 0
    wall: Optional[float] = None
    cpu: Optional[float] = None
    findings: Optional[int] = None
    status: str = "ok"
    notes: list[str] = field(default_factory=list)
    run: str = ""

    @property
    def rate(self) -> Optional[float]:
        return self.lines / self.wall if self.wall else None


@dataclass
class Tools:
    plugin_python: Optional[str]       # a python that imports both torchleak and flake8
    torchleak: Optional[str]
    torchleak_has_jobs: bool
    baseline_flake8: Optional[str]     # flake8 without torchleak installed
    torchfix: Optional[str]
    preflight: Optional[str]


# --------------------------------------------------------------------------- helpers


def run_timed(argv: Sequence[str], stdout_path: Path, timeout: float) -> tuple[float, float, int, str]:
    """Run ``argv``; return wall seconds, children CPU seconds, exit code and stderr tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(stdout_path, "wb") as out:
        try:
            # A neutral working directory, so no project config (setup.cfg, pyproject.toml) applies.
            proc = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, timeout=timeout,
                                  cwd=stdout_path.parent, env={**os.environ, "CI": "1"})
            code, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as expired:
            code, err = -9, f"timed out after {timeout:.0f} s\n" + (expired.stderr or b"").decode("utf-8", "replace")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code, err[-2000:]


def output(argv: Sequence[str], timeout: float = 60) -> tuple[int, str]:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        return -1, str(error)
    return proc.returncode, proc.stdout + proc.stderr


def count_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")   # what `wc -l` (and make_corpus.sh) counts


def corpus_files(corpus: Path) -> list[Path]:
    roots = [corpus / "src" / name for name in CORPUS_PACKAGES]
    if not all(root.is_dir() for root in roots):
        roots = [corpus]
    files = [p for root in roots for p in root.rglob("*.py") if p.is_file()]
    return sorted(files)


def fmt(value: Optional[float], digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


# --------------------------------------------------------------------------- discovery


def find_tools(peers_venv: Path, baseline_venv: Path, make_baseline: bool, python: Optional[str]) -> Tools:
    plugin_python = None
    exe = shutil.which("torchleak")
    if python:
        local = Path(python).with_name("torchleak")
        exe = str(local) if local.exists() else exe
    candidates = [python] if python else [sys.executable]
    if exe:
        try:
            first = Path(exe).read_text(errors="replace").splitlines()[0]
            if first.startswith("#!") and "python" in first:
                candidates.append(first[2:].strip().split()[0])
        except (OSError, IndexError):
            pass
    for python in candidates:
        code, _ = output([python, "-c", "import torchleak.engine, flake8"])
        if code == 0:
            plugin_python = python
            break

    has_jobs = False
    if exe:
        code, text = output([exe, "--help"])
        if code == 0:
            has_jobs = "--jobs" in text
        else:
            exe = None

    flake8_version = None
    if plugin_python:
        code, text = output([plugin_python, "-m", "flake8", "--version"])
        if code == 0:
            flake8_version = text.split()[0]
    baseline = baseline_venv / "bin" / "flake8"
    if not baseline.exists() and make_baseline:
        pin = f"flake8=={flake8_version}" if flake8_version else "flake8"
        print(f"creating {baseline_venv} with only {pin} (once) ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(baseline_venv)], check=False)
        subprocess.run([str(baseline_venv / "bin" / "pip"), "install", "-q", pin], check=False)
    baseline_flake8 = str(baseline) if baseline.exists() else None

    def peer(name: str) -> Optional[str]:
        local = peers_venv / "bin" / name
        return str(local) if local.exists() else shutil.which(name)

    return Tools(plugin_python, exe, has_jobs, baseline_flake8, peer("torchfix"), peer("torch-preflight"))


def compile_package(python: str) -> None:
    """Compile torchleak's modules to bytecode, as pip does when it installs the wheel (flake8 and
    its plugins on the baseline side are installed that way). An editable install run with
    ``PYTHONDONTWRITEBYTECODE=1`` (as on the machines this was measured on) otherwise compiles
    them from source in every process: measured 0.21 s of CPU for the analysis and the rules
    alone, against 0.04 s from bytecode, in each flake8 worker, CLI worker and editor lint."""
    code = "import compileall, os, torchleak; compileall.compile_dir(os.path.dirname(torchleak.__file__), quiet=1)"
    subprocess.run([python, "-c", code], capture_output=True, check=False, timeout=300)


def flake8_plugins(flake8: Sequence[str]) -> Optional[set[str]]:
    """The plugins ``flake8 --version`` lists, e.g. {"pyflakes", "torchleak"}."""
    code, text = output([*flake8, "--version"])
    match = re.search(r"\((.*?)\)", text)
    if code != 0 or not match:
        return None
    return {part.split(":")[0].strip() for part in match.group(1).split(",")}


def plugin_check(tools: Tools) -> list[str]:
    """Rows c and d differ only by torchleak when their flake8 plugin sets do."""
    if not (tools.plugin_python and tools.baseline_flake8):
        return []
    with_plugin = flake8_plugins([tools.plugin_python, "-m", "flake8"])
    baseline = flake8_plugins([tools.baseline_flake8])
    if with_plugin is None or baseline is None:
        return ["could not read the flake8 plugin lists"]
    if with_plugin - {"torchleak"} == baseline and "torchleak" in with_plugin:
        return [f"flake8 plugins, rows c/c2: {', '.join(sorted(with_plugin))}; row d: {', '.join(sorted(baseline))}"]
    return [f"WARNING: rows c and d differ by more than torchleak: {sorted(with_plugin)} vs {sorted(baseline)}"]


def versions(tools: Tools) -> dict[str, str]:
    found: dict[str, str] = {}
    probe = ("import importlib.metadata as m, json, sys\n"
             "out = {}\n"
             "for name in sys.argv[1:]:\n"
             "    try: out[name] = m.version(name)\n"
             "    except m.PackageNotFoundError: pass\n"
             "print(json.dumps(out))")
    envs = [("torchleak env", tools.plugin_python, ["torchleak", "libcst", "flake8", "pycodestyle", "pyflakes", "mccabe"])]
    if tools.baseline_flake8:
        envs.append(("baseline env", str(Path(tools.baseline_flake8).with_name("python")), ["flake8", "pycodestyle", "pyflakes", "mccabe"]))
    peer_exe = tools.torchfix or tools.preflight
    if peer_exe:
        envs.append(("peers env", str(Path(peer_exe).with_name("python")), ["torchfix", "torch-preflight", "libcst", "flake8"]))
    for label, python, names in envs:
        if not python:
            continue
        code, text = output([python, "-c", probe, *names])
        if code == 0:
            for name, value in json.loads(text.strip().splitlines()[-1]).items():
                found[f"{name} ({label})"] = value
    code, text = output(["git", "-C", str(REPO), "describe", "--always", "--dirty"])
    if code == 0:
        found["torchleak commit"] = text.strip()
    return found


def machine() -> dict[str, str]:
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kib / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "CPU": model,
        "nproc": str(usable),
        "memory": memory,
        "OS": platform.platform(),
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


# --------------------------------------------------------------------------- rows


FLOOR_WORKER = textwrap.dedent("""
    import ast, sys
    from multiprocessing import Pool

    def parse(path):
        with open(path, "rb") as handle:
            data = handle.read()
        try:
            ast.parse(data, path)
            return 0
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return 1

    if __name__ == "__main__":
        files = open(sys.argv[1]).read().split("\\n")
        jobs = int(sys.argv[2])
        if jobs > 1:
            with Pool(jobs) as pool:
                failures = sum(pool.map(parse, files, chunksize=16))
        else:
            failures = sum(map(parse, files))
        print(f"{failures} files ast rejected")
""")


def shown(argv: Sequence[str], files: Sequence[Path]) -> str:
    """The command as a reader would type it: file lists shortened to FILES, one file and any
    other path by its name (the docs must not carry this machine's temporary or venv paths)."""
    names = {str(p) for p in files}
    words = [Path(a).name if i == 0 or os.path.isabs(a) else a for i, a in enumerate(argv) if a not in names]
    if words[:3] == [Path(sys.executable).name, "-m", "flake8"] or (words[:1] and words[0].startswith("python")
                                                                   and words[1:3] == ["-m", "flake8"]):
        words = ["flake8", *words[3:]]
    return " ".join(words + (["FILES"] if len(names) > 1 else [files[0].name] if files else []))


def machine_paths(text: str) -> list[str]:
    """The lines of ``text`` naming a path of this machine (temp dir, home, this checkout, the
    interpreter's environment), which a page in docs/ must not carry."""
    roots = {tempfile.gettempdir(), str(Path.home()), str(REPO), sys.prefix, sys.base_prefix}
    pattern = re.compile("|".join(re.escape(root.rstrip("/") + "/") for root in sorted(roots) if root not in ("", "/")))
    return [line for line in text.splitlines() if pattern.search(line)]


def measure(row: Row, argv: list[str], files: Sequence[Path], lines: int, workdir: Path,
            timeout: float, count: str = "lines") -> Row:
    row.command = shown(argv, files)
    row.files, row.lines = len(files), lines
    stdout_path = workdir / f"{row.key}.out"
    print(f"  {row.key}: {row.title} ...", end="", file=sys.stderr, flush=True)
    wall, cpu, code, err = run_timed(argv, stdout_path, timeout)
    print(f" {wall:.1f} s", file=sys.stderr, flush=True)
    row.wall, row.cpu = wall, cpu
    text = stdout_path.read_text(errors="replace")
    if count == "json":
        try:
            row.findings = len(json.loads(text)["diagnostics"])
        except (ValueError, KeyError):
            row.findings = None
    elif count == "lines":
        row.findings = sum(1 for line in text.splitlines() if FINDING_LINE.search(line))
    if code == -9:
        row.status = "timed out"
    elif code not in (0, 1) or "Traceback" in err:
        row.status = f"error (exit {code})"
        row.notes.append(err.strip().splitlines()[-1] if err.strip() else "")
    return row


def not_available(key: str, title: str, why: str) -> Row:
    return Row(key, title, status=f"not available: {why}")


def file_list_args(files: Sequence[Path]) -> list[str]:
    return [str(p) for p in files]


# --------------------------------------------------------------------------- the 5,000-line file

TRAINING_BLOCK = '''
class Encoder{i}(nn.Module):
    """A small encoder, the kind every training script defines."""

    def __init__(self, vocab_size: int, hidden: int = 256, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, tokens: torch.Tensor, hidden: Optional[torch.Tensor] = None):
        x = self.dropout(self.embed(tokens))
        out, hidden = self.rnn(x, hidden)
        return self.head(out), hidden


def train_epoch_{i}(model, loader, optimizer, scheduler, scaler, device, log_every=50):
    model.train()
    total_loss = 0.0
    seen = 0
    for step, (inputs, targets) in enumerate(loader):
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            logits, _ = model(inputs)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total_loss += loss.item() * inputs.size(0)
        seen += inputs.size(0)
        if step % log_every == 0:
            logger.info("step %d loss %.4f lr %.2e", step, loss.item(), scheduler.get_last_lr()[0])
    return total_loss / max(seen, 1)


@torch.no_grad()
def evaluate_{i}(model, loader, device):
    model.eval()
    losses = []
    correct = 0
    total = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        logits, _ = model(inputs)
        losses.append(F.cross_entropy(logits.flatten(0, 1), targets.flatten()))
        correct += (logits.argmax(-1) == targets).sum().item()
        total += targets.numel()
    return torch.stack(losses).mean().item(), correct / max(total, 1)


def train_tbptt_{i}(model, stream, optimizer, bptt=35, device="cpu"):
    model.train()
    hidden = None
    history = []
    for chunk, target in stream:
        chunk, target = chunk.to(device), target.to(device)
        if hidden is not None:
            hidden = hidden.detach()
        optimizer.zero_grad()
        logits, hidden = model(chunk, hidden)
        loss = F.cross_entropy(logits.flatten(0, 1), target.flatten())
        loss.backward()
        optimizer.step()
        history.append(loss.detach())
    return torch.stack(history).mean().item()


def gradient_penalty_{i}(critic, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1, device=real.device)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mixed)
    grads = torch.autograd.grad(score.sum(), mixed, create_graph=True)[0]
    return ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


def train_gan_{i}(generator, critic, loader, g_opt, c_opt, z_dim=128, n_critic=5, device="cpu"):
    g_losses, c_losses = [], []
    for step, real in enumerate(loader):
        real = real.to(device)
        z = torch.randn(real.size(0), z_dim, device=device)
        fake = generator(z)
        c_opt.zero_grad()
        c_loss = critic(fake.detach()).mean() - critic(real).mean()
        c_loss = c_loss + 10.0 * gradient_penalty_{i}(critic, real, fake.detach())
        c_loss.backward()
        c_opt.step()
        c_losses.append(c_loss.item())
        if step % n_critic == 0:
            g_opt.zero_grad()
            g_loss = -critic(generator(z)).mean()
            g_loss.backward()
            g_opt.step()
            g_losses.append(g_loss.item())
    return sum(g_losses) / max(len(g_losses), 1), sum(c_losses) / max(len(c_losses), 1)


def accumulate_{i}(model, micro_batches, optimizer, accumulation=4):
    optimizer.zero_grad()
    for index, (inputs, targets) in enumerate(micro_batches):
        loss = F.mse_loss(model(inputs), targets) / accumulation
        loss.backward()
        if (index + 1) % accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()


@torch.no_grad()
def update_ema_{i}(ema_model, model, decay=0.999):
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.mul_(decay).add_(param.detach(), alpha=1 - decay)


def save_checkpoint_{i}(path, model, optimizer, epoch, metrics):
    state = {{
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "metrics": dict(metrics),
    }}
    torch.save(state, path)
    logger.info("saved %s (epoch %d)", path, epoch)


def fit_{i}(config):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Encoder{i}(config["vocab_size"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=config["lr"], total_steps=config["steps"])
    scaler = torch.cuda.amp.GradScaler()
    train_loader = DataLoader(config["train"], batch_size=32, shuffle=True, num_workers=4)
    val_loader = DataLoader(config["val"], batch_size=64)
    best = float("inf")
    for epoch in range(config["epochs"]):
        train_loss = train_epoch_{i}(model, train_loader, optimizer, scheduler, scaler, device)
        val_loss, accuracy = evaluate_{i}(model, val_loader, device)
        logger.info("epoch %d train %.4f val %.4f acc %.3f", epoch, train_loss, val_loss, accuracy)
        if val_loss < best:
            best = val_loss
            save_checkpoint_{i}(f"best_{i}.pt", model, optimizer, epoch, {{"val": val_loss}})
    return best
'''

LEAKY_BLOCK = '''
def leaky_epoch_{i}(model, loader, optimizer):
    running = 0
    outputs = []
    for inputs, targets in loader:
        optimizer.zero_grad()
        out = model(inputs)
        loss = F.mse_loss(out, targets)
        loss.backward()
        optimizer.step()
        running += loss
        outputs.append(out)
    return running, outputs
'''

TRAINING_HEADER = '''"""A typical training module: models, loops, evaluation, checkpoints (benchmark input)."""

import logging
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

logger = logging.getLogger(__name__)
'''


def typical_training_file(lines: int = TYPICAL_FILE_LINES) -> str:
    """Realistic training code, repeated with fresh names, cut to exactly ``lines`` lines.

    Like a real module it has one leaky loop (two findings), not one per block.
    """
    parts = [TRAINING_HEADER, "\n" + LEAKY_BLOCK.format(i=0)]
    i = 0
    while sum(part.count("\n") for part in parts) < lines:
        parts.append("\n" + TRAINING_BLOCK.format(i=i))
        i += 1
    kept = "".join(parts).splitlines(keepends=True)[:lines]
    # Cut before the last top-level statement that may have been truncated, then pad with
    # comment lines so the file stays valid Python and has exactly ``lines`` lines.
    while kept and not (kept[-1][:1].isalpha() or kept[-1][:1] == "@"):
        kept.pop()
    if kept:
        kept.pop()
    while kept and kept[-1][:1] == "@":
        kept.pop()
    kept += ["# padding\n"] * (lines - len(kept))
    source = "".join(kept)
    ast.parse(source)
    return source


TYPICAL_WORKER = textwrap.dedent("""
    import ast, json, statistics, sys, time
    path, repeats = sys.argv[1], int(sys.argv[2])
    source = open(path, encoding="utf-8").read()
    try:
        from torchleak.engine import lint_source
    except ImportError:
        from torchleak import lint_source
    def timed(fn):
        fn()                                   # warm-up: imports, caches
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            result = fn()
            runs.append(time.perf_counter() - start)
        return runs, result
    engine_runs, findings = timed(lambda: lint_source(source))
    ast_runs, _ = timed(lambda: ast.parse(source))
    print(json.dumps({"engine": engine_runs, "ast": ast_runs, "findings": len(findings)}))
""")


def typical_file_rows(tools: Tools, workdir: Path, timeout: float) -> tuple[list[Row], Path]:
    path = workdir / "typical_training.py"
    path.write_text(typical_training_file(), encoding="utf-8")
    lines = count_lines(path)
    rows: list[Row] = []
    if not tools.plugin_python:
        rows.append(not_available("t-engine", "torchleak engine, in-process", "torchleak not importable"))
        return rows, path
    code, text = output([tools.plugin_python, "-c", TYPICAL_WORKER, str(path), str(TYPICAL_FILE_REPEATS)], timeout)
    if code != 0:
        row = Row("t-engine", "torchleak engine, in-process", status=f"error (exit {code})")
        row.notes.append(text.strip().splitlines()[-1] if text.strip() else "")
        rows.append(row)
        return rows, path
    data = json.loads(text.strip().splitlines()[-1])
    for key, title, runs, findings in (
        ("t-ast", "ast.parse, in-process (floor)", data["ast"], None),
        ("t-engine", "torchleak engine `lint_source`, in-process", data["engine"], data["findings"]),
    ):
        row = Row(key, title, command=f"median of {TYPICAL_FILE_REPEATS} after 1 warm-up", jobs=1,
                  files=1, lines=lines, wall=statistics.median(runs), findings=findings)
        row.notes.append(f"min {min(runs) * 1000:.1f} ms, max {max(runs) * 1000:.1f} ms")
        rows.append(row)
    if tools.torchleak:
        rows.append(measure(Row("t-cli", "`torchleak FILE` (process start included)", jobs=1),
                            [tools.torchleak, str(path)], [path], lines, workdir, timeout))
    rows.append(measure(Row("t-flake8-tlk", "`flake8 --select TLK FILE` (with plugin)", jobs=1),
                        [tools.plugin_python, "-m", "flake8", "--isolated", "--select", "TLK", str(path)], [path], lines, workdir, timeout))
    if tools.baseline_flake8:
        rows.append(measure(Row("t-flake8-base", "`flake8 --select E999 FILE` (without plugin)", jobs=1),
                            [tools.baseline_flake8, "--isolated", "--select", "E999", str(path)], [path], lines, workdir, timeout))
    return rows, path


# --------------------------------------------------------------------------- main


@dataclass
class Planned:
    row: Row
    argv: list[str]
    files: Sequence[Path]
    lines: int
    count: str = "lines"
    command: str = ""


def corpus_rows(tools: Tools, files: list[Path], lines: int, sample: list[Path], sample_lines: int,
                jobs: int, workdir: Path, timeout: float, wanted: Callable[[str], bool], repeat: int) -> list[Row]:
    """Plan every wanted row, then run them ``repeat`` times, interleaved, keeping each row's fastest run."""
    list_file = workdir / "files.txt"
    list_file.write_text("\n".join(map(str, files)))
    paths = file_list_args(files)
    sample_paths = file_list_args(sample)
    tl_jobs = ["--jobs", str(jobs)] if tools.torchleak_has_jobs else []
    flake8 = [tools.plugin_python, "-m", "flake8", "--isolated", "-j", str(jobs)] if tools.plugin_python else []
    plan: list[Planned | Row] = []

    if wanted("a"):
        plan.append(Planned(Row("a", "`ast.parse` of every file (floor)", jobs=jobs),
                            [sys.executable, "-c", FLOOR_WORKER, str(list_file), str(jobs)], files, lines, "none",
                            f"python: ast.parse(bytes) per file, multiprocessing.Pool({jobs})"))
    if wanted("b"):
        plan.append(Planned(Row("b", "`torchleak` CLI", jobs=jobs if tl_jobs else 1),
                            [tools.torchleak, *tl_jobs, *paths], files, lines) if tools.torchleak
                    else not_available("b", "`torchleak` CLI", "torchleak is not installed"))
    if wanted("c"):
        plan.append(Planned(Row("c", "`flake8 --select TLK` (our plugin)", jobs=jobs),
                            [*flake8, "--select", "TLK", *paths], files, lines) if flake8
                    else not_available("c", "`flake8 --select TLK` (our plugin)", "torchleak plugin is not installed"))
    if wanted("c2") and flake8:
        plan.append(Planned(Row("c2", "`flake8 --select E999`, our plugin installed but not selected", jobs=jobs),
                            [*flake8, "--select", "E999", *paths], files, lines))
    if wanted("d"):
        plan.append(Planned(Row("d", "`flake8 --select E999` without our plugin", jobs=jobs),
                            [tools.baseline_flake8, "--isolated", "-j", str(jobs), "--select", "E999", *paths], files, lines,
                            command=f"<flake8-only venv>/bin/flake8 --isolated -j {jobs} --select E999 FILES")
                    if tools.baseline_flake8
                    else not_available("d", "`flake8 --select E999` without our plugin", "no flake8-only virtualenv"))
    if wanted("b-sample") and tools.torchleak and (tools.torchfix or tools.preflight):
        plan.append(Planned(Row("b-sample", "`torchleak` CLI, peer sample", jobs=jobs if tl_jobs else 1),
                            [tools.torchleak, *tl_jobs, *sample_paths], sample, sample_lines))
    if wanted("e"):
        plan.append(Planned(Row("e", "TorchFix CLI (default rules), peer sample", jobs=jobs),
                            [tools.torchfix, "-j", str(jobs), *sample_paths], sample, sample_lines) if tools.torchfix
                    else not_available("e", "TorchFix CLI", "torchfix is not installed"))
    if wanted("f") and tools.preflight:
        plan.append(Planned(Row("f", "torch-preflight `check` (all rules), peer sample", jobs=jobs),
                            [tools.preflight, "check", "-q", "-f", "json", "-j", str(jobs), *sample_paths],
                            sample, sample_lines, "json"))

    best: dict[str, Row] = {}
    walls: dict[str, list[str]] = {}
    for _ in range(repeat):
        for item in plan:
            if not isinstance(item, Planned):
                continue
            template = item.row
            row = measure(Row(template.key, template.title, jobs=template.jobs),
                          [str(a) for a in item.argv], item.files, item.lines, workdir, timeout, item.count)
            row.command = item.command or row.command
            if item.count == "none":
                row.findings = None
            walls.setdefault(row.key, []).append(f"{row.wall:.2f} s ({row.cpu:.1f} s CPU)")
            kept = best.get(row.key)
            if kept is None or (row.status == "ok" and (kept.status != "ok" or (row.wall or 0) < (kept.wall or 0))):
                best[row.key] = row
    if repeat > 1:
        for key, row in best.items():
            row.notes.append(f"fastest of {repeat} interleaved runs: " + ", ".join(walls[key]))
    return [best[item.row.key] if isinstance(item, Planned) else item for item in plan]


def table(rows: Sequence[Row], floor: Optional[Row]) -> str:
    runs = sorted({row.run for row in rows if row.run})
    several = len(runs) > 1
    head = ("| row | what | -j | files | lines | wall s | lines/s | CPU s | × floor | findings | status |"
            + (" run |" if several else "") + "\n"
            + "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|" + ("---|" if several else ""))
    body = []
    for row in rows:
        versus = (row.wall / floor.wall if row.wall and floor and floor.wall and row.lines == floor.lines
                  and row.files == floor.files and (row.key in CORPUS_KEYS or row.key.startswith("t-")) else None)
        wall = fmt(row.wall * 1000, 1) + " ms" if row.key.startswith("t-") and row.wall else fmt(row.wall, 2)
        body.append(f"| {row.key} | {row.title} | {row.jobs or '—'} | {row.files:,} | {row.lines:,} | {wall} | "
                    f"{fmt(row.rate, 0)} | {fmt(row.cpu, 1)} | {fmt(versus, 1)} | "
                    f"{'—' if row.findings is None else f'{row.findings:,}'} | {row.status} |"
                    + (f" {runs.index(row.run) + 1} |" if several and row.run else (" — |" if several else "")))
    legend = ["", *[f"Run {i + 1}: {label}." for i, label in enumerate(runs)]] if several else []
    return "\n".join([head, *body, *legend])


CORPUS_KEYS = {"a", "b", "c", "c2", "d"}


def targets(rows: dict[str, Row]) -> list[str]:
    out = []
    b, e = rows.get("b-sample"), rows.get("e")
    if b and e and b.rate and e.rate and b.status == "ok" and e.status == "ok":
        ratio = b.rate / e.rate
        verdict = "met" if ratio >= TARGET_CLI_VS_TORCHFIX else "NOT met"
        verdict += "" if b.run == e.run else " (rows from different runs)"
        cpu = f"; CPU {e.cpu / b.cpu:.1f}× less ({b.cpu:.1f} s vs {e.cpu:.1f} s)" if b.cpu and e.cpu else ""
        out.append(f"- CLI vs TorchFix CLI on the same {b.files:,} files: **{ratio:.1f}× faster** on wall time{cpu} "
                   f"(target ≥ {TARGET_CLI_VS_TORCHFIX:.0f}×): {verdict}.")
    else:
        out.append("- CLI vs TorchFix CLI: not measured (a tool is missing or failed).")
    c, d = rows.get("c"), rows.get("d")
    if c and d and c.wall and d.wall and c.status == "ok" and d.status == "ok":
        overhead = c.wall / d.wall - 1
        verdict = "met" if overhead <= TARGET_PLUGIN_OVERHEAD else "NOT met"
        verdict += "" if c.run == d.run else " (rows from different runs)"
        cpu = f", CPU {c.cpu / d.cpu - 1:+.0%} ({c.cpu:.0f} s vs {d.cpu:.0f} s)" if c.cpu and d.cpu else ""
        out.append(f"- Plugin overhead, `flake8 --select TLK` (c) over `flake8 --select E999` without the plugin (d): "
                   f"wall **{overhead:+.0%}** ({c.wall:.1f} s vs {d.wall:.1f} s){cpu}; "
                   f"target ≤ +{TARGET_PLUGIN_OVERHEAD:.0%}: {verdict} (on wall time).")
        b_full = rows.get("b")
        if b_full and b_full.cpu and d.cpu and b_full.status == "ok":
            out.append(f"- Engine CPU over the corpus (b, the CLI: read, pre-filter, parse, analyse) against flake8's own CPU (d): "
                       f"**{b_full.cpu / d.cpu:.0%}** ({b_full.cpu:.0f} s vs {d.cpu:.0f} s) — what the plugin would add if it did "
                       f"all the CLI's work in every worker; less noisy than the wall-time difference on a shared machine.")
        c2 = rows.get("c2")
        if c2 and c2.wall:
            cpu2 = f", CPU {c2.cpu / d.cpu - 1:+.0%}" if c2.cpu and d.cpu else ""
            same = "" if c2.run == d.run else " (rows from different runs)"
            out.append(f"- Cost when installed but not selected, (c2) over (d): wall **{c2.wall / d.wall - 1:+.0%}** "
                       f"({c2.wall:.1f} s vs {d.wall:.1f} s){cpu2}{same}.")
    else:
        out.append("- Plugin overhead: not measured (a row is missing or failed).")
    t = rows.get("t-engine")
    if t and t.wall and t.status == "ok":
        ms = t.wall * 1000
        verdict = "met" if ms <= TARGET_TYPICAL_FILE_MS else "NOT met"
        out.append(f"- A typical {t.lines:,}-line training file through the engine: **{ms:.0f} ms** "
                   f"(median; target ≤ {TARGET_TYPICAL_FILE_MS:.0f} ms): {verdict}.")
    else:
        out.append("- Typical 5,000-line file: not measured (the engine is not importable or failed).")
    return out


def report(rows: list[Row], info: dict[str, str], vers: dict[str, str], args: argparse.Namespace,
           files: int, lines: int, sample: int, sample_lines: int, extra_notes: Sequence[str] = (),
           training: Sequence[str] = ()) -> str:
    by_key = {row.key: row for row in rows}
    floor = by_key.get("a")
    corpus = [r for r in rows if not r.key.startswith("t-")]
    typical = [r for r in rows if r.key.startswith("t-")]
    notes = [f"- **{r.key}**: {n}" for r in rows for n in r.notes if n] + [f"- {n}" for n in extra_notes]
    runs = sorted({r.run for r in rows if r.run})
    provenance = ("every figure below comes from one run." if len(runs) <= 1 else
                  f"the figures come from {len(runs)} runs (column *run*; `--only … --save`, then `--merge`), "
                  "because one run of every row takes longer than 10 minutes on this machine. "
                  "The two rows each target compares always come from the same run.")
    commands = [f"- {r.key}: `{r.command}`" for r in rows if r.command]
    parts = [
        "# Performance",
        "",
        f"Generated by `python scripts/benchmark.py --write`; {provenance}",
        "",
        "## Machine and versions",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        *[f"- {k}: {v}" for k, v in vers.items()],
        "",
        *(training[:2] + training_file_note() + training[2:] if training else []),
        *([
            "## Corpus",
            "",
            f"{files:,} files, {lines:,} lines. The slow peers and row b-sample lint every "
            f"{args.peer_sample}th file of the sorted list: {sample:,} files, {sample_lines:,} lines.",
            "",
            table(corpus, floor),
            "",
            "Wall seconds include interpreter start. CPU s is user+sys of the tool's processes.",
            "",
        ] if corpus else []),
        *([
            "## A typical 5,000-line training file",
            "",
            table(typical, by_key.get("t-ast")),
            "",
        ] if typical else []),
        *(["## Earlier targets", "", *targets(by_key), ""] if corpus or typical else []),
        "## Commands",
        "",
        *commands,
    ]
    if notes:
        parts += ["", "## Notes", "", *notes]
    return "\n".join(parts) + "\n"


def training_section(tools: Tools, files: list[Path], sample: list[Path], phase_files: list[Path],
                     args: argparse.Namespace, workdir: Path, wanted: Callable[[str], bool]) -> list[str]:
    """The training-code targets side by side, and where the time goes (bench_training.py)."""
    if not tools.plugin_python or not any(wanted(key) for key in TRAINING_KEYS):
        return []
    setup = bench_training.Setup(
        python=tools.plugin_python, torchleak=tools.torchleak, baseline_flake8=tools.baseline_flake8,
        ruff=bench_training.find_ruff(tools.plugin_python), training_file=typical_training_file(),
        small_training_file=typical_training_file(EDITOR_FILE_LINES), corpus=files[:: args.cli_sample], sample=sample,
        repeat=args.training_repeat, in_process_repeats=args.in_process_repeats, jobs=args.jobs, wanted=wanted,
    )
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    env = {**os.environ, "TORCHLEAK_NO_CACHE": "1"}
    lines = ["## Training code: the targets", ""]
    load_before = os.getloadavg()[0]
    targets, notes = bench_training.run_targets(setup, workdir, log)
    if args.cli_sample > 1 and any(target.key == "corpus-cli" for target in targets):
        corpus_lines = sum(count_lines(path) for path in setup.corpus)
        notes.append(f"corpus-cli: every {args.cli_sample}th file of the corpus ({len(setup.corpus):,} files, "
                     f"{corpus_lines:,} lines), not all of it")
    if targets:
        lines += [
            f"Each target's two sides ran one after the other, {args.training_repeat} times; a figure is the median "
            "of the per-repeat ratios (or differences). The cold in-process figures are medians of "
            f"{args.in_process_repeats} runs after a warm-up, each side in a fresh interpreter. Load average "
            f"{load_before:.2f} → {os.getloadavg()[0]:.2f} over these runs.",
            "",
            *bench_training.targets_table(targets),
            "",
            *bench_training.targets_detail(targets),
            *[f"- {note}" for note in notes],
            "",
        ]
    if wanted("phases"):
        log("  phase profile")
        training_file = workdir / "phases" / "typical_training.py"
        training_file.parent.mkdir(parents=True, exist_ok=True)
        training_file.write_text(typical_training_file(), encoding="utf-8")
        training = bench_training.phases(tools.plugin_python, [training_file], args.in_process_repeats, env)
        corpus = bench_training.phases(tools.plugin_python, phase_files, 1, env) if phase_files else None
        corpus_lines = sum(count_lines(path) for path in phase_files)
        label = f"corpus, every {args.phase_sample}th file ({len(phase_files):,} files, {corpus_lines:,} lines)"
        lines += [
            "## Where the time goes",
            "",
            "Seconds per phase of `check_source`, in one process: the training file's column is the median of "
            f"{args.in_process_repeats} runs after a first one, which pays the imports; the corpus column is one "
            "pass over its files after such a first pass. The imports are measured once, in the first pass.",
            "",
            *bench_training.phase_table(training, corpus, label),
            "",
        ]
    return lines


def training_file_note() -> list[str]:
    """How the training file is built (the page says so above the figures measured on it)."""
    return [
        f"The training file is what `typical_training_file()` in `scripts/benchmark.py` writes: a header of imports, "
        f"one leaky loop (two findings), then a block of realistic training code repeated with fresh names "
        f"(a GRU encoder module, an AMP training epoch with a scheduler and gradient clipping, a no-grad evaluation, "
        f"truncated backpropagation through time, a WGAN-GP gradient penalty with `create_graph=True`, a GAN loop, "
        f"gradient accumulation, an EMA update, checkpointing and a `fit` driver), cut to {TYPICAL_FILE_LINES:,} lines. "
        f"Every top-level statement of it passes the pre-filter. The editor's file is the first "
        f"{EDITOR_FILE_LINES} lines of the same construction.",
        "",
    ]


#: The editor target's file: about what one module of a training project holds.
EDITOR_FILE_LINES = 500


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help="corpus dir built by make_corpus.sh (its src/<ten packages>) or any tree of .py files")
    parser.add_argument("--jobs", "-j", type=int, default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    parser.add_argument("--peer-sample", type=int, default=20, help="the slow peers lint every Nth file (1 = all)")
    parser.add_argument("--sample", type=int, default=1, help="every row lints only every Nth file (quick runs)")
    parser.add_argument("--skip", default="", help="comma-separated rows to skip, e.g. e,f (t = the 5,000-line file)")
    parser.add_argument("--only", default="", help="comma-separated rows to run, e.g. a,b,c,d")
    parser.add_argument("--report-only", action="store_true", help="measure nothing; render the --merge'd rows")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the corpus rows N times, interleaved, and keep each row's fastest (a noisy machine)")
    parser.add_argument("--save", type=Path, help="also save the measured rows as JSON (to --merge later)")
    parser.add_argument("--merge", type=Path, action="append", default=[],
                        help="add rows saved by an earlier --save (a machine too slow for one run within a time limit)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds allowed per row")
    parser.add_argument("--peers-venv", type=Path, default=DEFAULT_PEERS_VENV, help="virtualenv holding torchfix / torch-preflight")
    parser.add_argument("--baseline-venv", type=Path, default=Path(tempfile.gettempdir()) / "torchleak-bench-flake8",
                        help="virtualenv holding only flake8 (created if missing)")
    parser.add_argument("--no-create-baseline", action="store_true", help="do not create the flake8-only virtualenv")
    parser.add_argument("--python", help="python of the environment where torchleak is installed (default: this one)")
    parser.add_argument("--training-repeat", type=int, default=3,
                        help="repeats of each training-code target (both sides of a ratio run in each repeat)")
    parser.add_argument("--in-process-repeats", type=int, default=5,
                        help="timed runs (after one warm-up) per in-process measurement of the training file")
    parser.add_argument("--cli-sample", type=int, default=1,
                        help="the corpus target (CLI vs ruff) lints every Nth file (1 = the whole corpus)")
    parser.add_argument("--phase-sample", type=int, default=20,
                        help="the corpus column of the phase profile covers every Nth file (1 = all)")
    parser.add_argument("--note", action="append", default=[], help="a line to add under Notes (context measured by hand)")
    parser.add_argument("--write", action="store_true", help="also write docs/performance.md")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "performance.md")
    args = parser.parse_args(argv)

    files = corpus_files(args.corpus)[:: args.sample]
    if not files:
        print(f"no .py files under {args.corpus}; build it with: bash ../shared/perf/make_corpus.sh {args.corpus}",
              file=sys.stderr)
        return 2
    line_counts = {p: count_lines(p) for p in files}   # also warms the page cache
    lines = sum(line_counts.values())
    sample = files[:: args.peer_sample]
    sample_lines = sum(line_counts[p] for p in sample)
    tools = find_tools(args.peers_venv, args.baseline_venv, not args.no_create_baseline, args.python)
    if tools.plugin_python:
        compile_package(tools.plugin_python)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    only = {s.strip() for s in args.only.split(",") if s.strip()}

    def wanted(key: str) -> bool:
        group = "t" if key.startswith("t-") else key
        return not args.report_only and group not in skip and (not only or group in only)

    load_before = os.getloadavg()[0]
    print(f"corpus: {len(files):,} files, {lines:,} lines; peer sample {len(sample):,} files, "
          f"{sample_lines:,} lines; -j {args.jobs}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="torchleak-bench-") as tmp:
        workdir = Path(tmp)
        rows = corpus_rows(tools, files, lines, sample, sample_lines, args.jobs, workdir, args.timeout, wanted, args.repeat)
        if wanted("t-engine"):
            typical, _ = typical_file_rows(tools, workdir, min(args.timeout, 300))
            rows += typical
        training = training_section(tools, files, sample, files[:: args.phase_sample], args, workdir, wanted)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M UTC")
    code, described = output(["git", "-C", str(REPO), "describe", "--always", "--dirty"])
    commit = f"torchleak {described.strip()}, " if code == 0 else ""
    run_label = f"{commit}run at {stamp}, load average {load_before:.2f} → {os.getloadavg()[0]:.2f}"
    for row in rows:
        row.run = run_label
    if args.save:
        args.save.write_text(json.dumps({"rows": [row.__dict__ for row in rows], "training": training}, indent=1))
    for saved in args.merge:
        data = json.loads(saved.read_text())
        earlier = [Row(**row) for row in (data["rows"] if isinstance(data, dict) else data)]
        measured = {row.key for row in rows}
        rows += [row for row in earlier if row.key not in measured]
        if not training and isinstance(data, dict):
            training = data.get("training", [])
    order = ["a", "b", "c", "c2", "d", "b-sample", "e", "f", "t-ast", "t-engine", "t-cli", "t-flake8-tlk", "t-flake8-base"]
    rows.sort(key=lambda row: order.index(row.key) if row.key in order else len(order))
    info = machine()
    if not args.report_only:
        info["load average (1 min), start → end"] = f"{load_before:.2f} → {os.getloadavg()[0]:.2f}"
    text = report(rows, info, versions(tools), args, len(files), lines, len(sample), sample_lines,
                  [*plugin_check(tools), *args.note], training)
    print(text)
    if args.write:
        leaked = machine_paths(text)
        if leaked:
            print("not written: the report names paths of this machine:\n" + "\n".join(leaked), file=sys.stderr)
            return 1
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
