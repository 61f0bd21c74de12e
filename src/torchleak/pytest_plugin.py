"""A pytest fixture that fails a test when a training step keeps memory alive per iteration.

    def test_step_does_not_leak(leakcheck):
        leakcheck(train_step, iters=20)

Modelled on pytest-memray's ``limit_leaks``: the step runs for a warm-up and then ``iters``
measured iterations (``torchleak.runtime.measure``), and the failure message puts each limit
next to the measured figure. Registered through the ``pytest11`` entry point; it imports
without torch, and a test that uses the fixture is skipped, with the reason, where torch is
missing.

The default limits come from measurement (torch 2.13, CPU; see ``docs/evidence.md``):

* tensor memory is exact, so any growth is real; the default of 1 KiB per iteration lets a
  step keep a small detached tensor on purpose (a logged loss is 4 B on CPU, one 512-B block
  on CUDA) while the smallest graph leak measured, a one-layer model's kept loss, holds
  nodes that show on the heap meter below;
* the host heap moves by up to a few hundred bytes per iteration on its own, and averaged
  over 20 iterations steps that keep nothing stayed within +-100 B; keeping one detached loss
  per iteration costs about 400 B (tensor object, storage, list slot), while the smallest
  graph leak measured (``total += loss`` on a single ``nn.Linear``, with ``backward()``
  every step) keeps about 2,600 B of autograd nodes per iteration. The default of 2 KiB sits
  between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Final

import pytest

from torchleak.runtime import Growth, StepRaised, measure

#: Tensor bytes a step may add per iteration by default (see the module docstring).
DEFAULT_MAX_BYTES_PER_ITER: Final = 1024
#: Host-heap bytes a step may add per iteration by default (see the module docstring).
DEFAULT_MAX_HEAP_BYTES_PER_ITER: Final = 2048


def _bytes(value: float) -> str:
    return f"{value:,.0f} B"


def _deltas(values: tuple[int, ...]) -> str:
    shown = ", ".join(f"{value:,}" for value in values[:8])
    return shown + (", ..." if len(values) > 8 else "")


@dataclass(frozen=True)
class LeakCheck:
    """Call it with a zero-argument step; it returns the ``Growth`` or fails the test."""

    def __call__(
        self,
        step: Callable[[], object],
        iters: int = 20,
        warmup: int = 2,
        device: str = "cpu",
        max_bytes_per_iter: float = DEFAULT_MAX_BYTES_PER_ITER,
        max_heap_bytes_per_iter: float | None = DEFAULT_MAX_HEAP_BYTES_PER_ITER,
    ) -> Growth:
        """Measure ``step`` and fail the test if it keeps more than the limits per iteration.

        ``max_heap_bytes_per_iter=None`` skips the heap meter (and, on CPU, the second run
        of the step that it needs).
        """
        try:
            growth = measure(
                step, iters=iters, warmup=warmup, device=device, heap=max_heap_bytes_per_iter is not None
            )
        except StepRaised as raised:  # one clear line, not a traceback through the plugin
            pytest.fail(
                f"leakcheck: the step raised at iteration {raised.iteration} (counting the {warmup} warm-up): "
                f"{type(raised.error).__name__}: {raised.error}",
                pytrace=False,
            )
        problems: list[str] = []
        if growth.bytes_per_iter > max_bytes_per_iter:
            problems.append(
                f"tensor memory grows {_bytes(growth.bytes_per_iter)} per iteration "
                f"(limit {_bytes(max_bytes_per_iter)}); per-iteration deltas: "
                f"{_deltas(growth.tensor_deltas)}"
            )
        heap = growth.heap_bytes_per_iter
        if max_heap_bytes_per_iter is not None and heap is not None and heap > max_heap_bytes_per_iter:
            problems.append(
                f"host heap grows {_bytes(heap)} per iteration "
                f"(limit {_bytes(max_heap_bytes_per_iter)}); per-iteration deltas: "
                f"{_deltas(growth.heap_deltas)}"
            )
        if problems:
            where = f"on {growth.device} over {growth.iters} iterations after {warmup} warm-up"
            pytest.fail(
                "leakcheck: the step keeps memory alive every iteration "
                + where
                + "\n  "
                + "\n  ".join(problems)
                + f"\n  peak {_bytes(growth.peak_bytes)} above the level before the warm-up",
                pytrace=False,
            )
        return growth


@pytest.fixture
def leakcheck() -> LeakCheck:
    """Measure a training step's memory growth per iteration; fail above the limits."""
    try:
        import torch  # noqa: F401  (only to know whether measuring is possible)
    except ImportError:
        pytest.skip("leakcheck needs torch, which is not installed: pip install 'torchleak[memory]'")
    return LeakCheck()
