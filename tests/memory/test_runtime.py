"""The meters themselves: exact where they claim to be, and blind to nothing a leak can hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from memory_params import DEVICES  # noqa: E402

from torchleak.rule import LeakDemo  # noqa: E402
from torchleak.runtime import StepRaised, demo_step, heap_in_use, measure, measure_demo  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"


def test_counts_exactly_the_tensor_bytes_a_step_keeps() -> None:
    kept: list[Any] = []
    growth = measure(lambda: kept.append(torch.empty(1000)), iters=10)
    assert growth.tensor_deltas == (4000,) * 10
    assert growth.bytes_per_iter == 4000
    assert growth.steady


def test_sees_tensors_that_only_the_autograd_graph_holds() -> None:
    weight = torch.randn(1000, requires_grad=True)
    kept: list[Any] = []

    def step() -> None:
        # Only the scalar is kept; MulBackward0 saves the fresh 1000-float input (4,000 B).
        kept.append((weight * torch.randn(1000)).sum())

    growth = measure(step, iters=10)
    scalar = measure(lambda: kept.append(torch.randn(1000).sum()), iters=10).bytes_per_iter
    assert growth.bytes_per_iter == 4000 + scalar
    assert growth.steady


def test_a_transient_allocation_raises_the_peak_not_the_growth() -> None:
    def step() -> None:
        scratch = torch.ones(250_000)  # 1,000,000 B, freed when the step returns
        del scratch

    growth = measure(step, iters=5)
    assert growth.bytes_per_iter == 0
    assert growth.peak_bytes >= 1_000_000


def test_repeated_runs_agree_to_the_byte() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    kept: list[Any] = []

    def step() -> None:
        kept.append(model(torch.randn(32, 64)))

    first, second = measure(step, iters=5), measure(step, iters=5)
    assert first.tensor_deltas == second.tensor_deltas
    assert first.bytes_per_iter > 0


@pytest.mark.skipif(heap_in_use() is None, reason="no glibc mallinfo2 on this platform")
def test_heap_meter_sees_growth_that_holds_no_tensor() -> None:
    kept: list[bytes] = []
    # bytes objects above 512 B come from malloc, like autograd nodes do.
    growth = measure(lambda: kept.append(bytes(10_000)), iters=20)
    assert growth.bytes_per_iter == 0
    assert growth.heap_bytes_per_iter is not None
    assert 10_000 <= growth.heap_bytes_per_iter <= 10_000 + 512


@pytest.mark.skipif(heap_in_use() is None, reason="no glibc mallinfo2 on this platform")
def test_heap_meter_noise_is_within_the_suite_tolerance() -> None:
    total = [0.0]
    model = torch.nn.Linear(32, 1)

    def step() -> None:
        loss = model(torch.randn(16, 32)).pow(2).mean()
        loss.backward()
        total[0] += loss.item()

    growth = measure(step, iters=20)
    assert growth.heap_bytes_per_iter is not None
    assert abs(growth.heap_bytes_per_iter) <= 512, growth.heap_deltas


def test_the_iteration_that_raised_is_reported() -> None:
    calls = [0]

    def step() -> None:
        calls[0] += 1
        if calls[0] == 3:
            raise RuntimeError("boom")

    with pytest.raises(StepRaised, match="iteration 3 raised RuntimeError: boom") as raised:
        measure(step, iters=5, warmup=2)
    assert raised.value.iteration == 3
    assert isinstance(raised.value.error, RuntimeError)


def test_demo_steps_cycle_through_the_loader_and_share_the_setup_namespace() -> None:
    demo = LeakDemo(setup="loader = ['a', 'b']\nseen = []\n", leaky="seen.append(batch)", fixed="pass", meter="tensor")
    step = demo_step(demo, "leaky")
    for _ in range(5):
        step()
    assert step.namespace["seen"] == ["a", "b", "a", "b", "a"]


def test_demo_setup_gets_torch_nn_f_and_device() -> None:
    demo = LeakDemo(
        setup="assert torch and nn and F\nx = torch.zeros(1, device=device)\nloader = [x]\nkept = []\n",
        leaky="kept.append(torch.ones(256, device=device))",
        fixed="pass",
        meter="tensor",
    )
    assert measure_demo(demo, "leaky", iters=4).tensor_deltas == (1024,) * 4
    assert measure_demo(demo, "fixed", iters=4).bytes_per_iter == 0


def test_a_setup_without_loader_is_refused() -> None:
    with pytest.raises(ValueError, match="must bind `loader`"):
        demo_step(LeakDemo(setup="x = 1", leaky="pass", fixed="pass", meter="tensor"), "leaky")


@pytest.mark.parametrize("device", DEVICES)
def test_measures_on_each_device(device: str) -> None:
    kept: list[Any] = []
    growth = measure(lambda: kept.append(torch.empty(2048, device=device)), iters=5, device=device)
    # 8,192 B is a multiple of CUDA's 512-B blocks, so both devices see exactly this.
    assert growth.tensor_deltas == (8192,) * 5
    assert growth.device.startswith(device)


def test_runtime_and_plugin_import_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"  # makes `import torch` raise ImportError
        "import torchleak.runtime, torchleak.pytest_plugin\n"
        "try:\n"
        "    torchleak.runtime.measure(lambda: None)\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'torchleak[memory]'" in result.stdout
