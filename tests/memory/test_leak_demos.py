"""Every rule's demo, run for real: the leaky step shows its harm on its meter, the fix does not.

The figure asserted for the leaky step is the first "N B" in the demo's ``expectation`` (the
same words its rule page shows), or its "N B on CUDA" on CUDA. Tolerances for the fixed
steps, from measurement (20 iterations, 3 runs each: torch 2.13 on CPU, torch 2.11 on an
H100; see docs/evidence.md):

* tensor memory is exact on both devices (identical to the byte across runs and processes),
  so the tolerance is not noise: it admits what a fixed loop keeps on purpose, at most
  512 B per iteration in these demos (TLK102's detached 128x1 outputs, TLK301's detached
  64x2 input gradients; also 512 B on CUDA, one block). The smallest leak asserted is 224x
  that (TLK202, 114,688 B per iteration).
* the host heap is not exact: averaged over 20 iterations, fixed steps stayed within
  -10..+30 B per iteration on CPU and -14..+149 B on CUDA (fixed steps that keep no tensor);
  the heap tolerance is 512 B against a leak of over 10,000 B.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from memory_params import DEVICES, stated_bytes  # noqa: E402

from torchleak.rule import Rule  # noqa: E402
from torchleak.rules import ALL_RULES  # noqa: E402
from torchleak.runtime import Growth, StepRaised, measure_demo  # noqa: E402

FIXED_TENSOR_TOLERANCE = 512
FIXED_HEAP_TOLERANCE = 512
ITERS = 20

DEMO_RULES = [pytest.param(rule, id=rule.code) for rule in ALL_RULES if rule.demo is not None]

# TLK302's demo is the very pattern this warning is about.
pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")


def _measure(rule: type[Rule], which: str, device: str, heap: bool = False) -> Growth:
    assert rule.demo is not None
    return measure_demo(rule.demo, which, iters=ITERS, device=device, heap=heap)  # type: ignore[arg-type]


def _explain(growth: Growth) -> str:
    return f"{growth.summary()}; tensor deltas {growth.tensor_deltas}; heap deltas {growth.heap_deltas}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rule", DEMO_RULES)
def test_leaky_demo_shows_its_harm(rule: type[Rule], device: str) -> None:
    demo = rule.demo
    assert demo is not None
    if demo.meter == "error":
        with pytest.raises(StepRaised) as raised:
            _measure(rule, "leaky", device)
        assert demo.raises and demo.raises in str(raised.value.error)
        # The first backward frees the graph that the second one walks into.
        assert raised.value.iteration == 2
        return

    stated = stated_bytes(demo, device)
    if demo.meter == "tensor":
        leaky = _measure(rule, "leaky", device)
        # Every measured iteration, not just on average: a leak grows each step.
        assert min(leaky.tensor_deltas) >= stated, f"expected >= {stated:,} B each iteration: {_explain(leaky)}"
    elif demo.meter == "heap":
        leaky = _measure(rule, "leaky", device, heap=True)
        assert leaky.heap_bytes_per_iter is not None, "no mallinfo2 here: the heap meter needs glibc"
        assert leaky.heap_bytes_per_iter >= stated, f"expected >= {stated:,} B heap per iteration: {_explain(leaky)}"
        # What makes this a heap leak: backward() already freed every saved tensor.
        assert leaky.bytes_per_iter == 0, _explain(leaky)
    elif demo.meter == "peak":
        leaky = _measure(rule, "leaky", device)
        fixed = _measure(rule, "fixed", device)
        raised_by = leaky.peak_bytes - fixed.peak_bytes
        assert raised_by >= stated, (
            f"expected the peak {stated:,} B above the fix's, got {raised_by:,} B\n"
            f"leaky: {_explain(leaky)}\nfixed: {_explain(fixed)}"
        )
        # A peak, not a leak: the retained graph is replaced every iteration.
        assert leaky.bytes_per_iter <= FIXED_TENSOR_TOLERANCE, _explain(leaky)
    else:
        pytest.fail(f"unknown meter {demo.meter!r}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rule", DEMO_RULES)
def test_fixed_demo_does_not_grow(rule: type[Rule], device: str) -> None:
    demo = rule.demo
    assert demo is not None
    heap = demo.meter == "heap"
    fixed = _measure(rule, "fixed", device, heap=heap)
    assert fixed.bytes_per_iter <= FIXED_TENSOR_TOLERANCE, _explain(fixed)
    if heap:
        assert fixed.heap_bytes_per_iter is not None
        assert fixed.heap_bytes_per_iter <= FIXED_HEAP_TOLERANCE, _explain(fixed)
