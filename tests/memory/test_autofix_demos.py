"""Every rule's leak demonstration, fixed by ``torchleak --fix --unsafe-fixes`` instead of by
hand, and run for real: the autofixed step must not grow memory (nor raise, nor raise the peak
above the hand-written fix's), and the linter must have nothing left to say about it.

The same tolerances as test_leak_demos.py: tensor memory is exact, so 512 B per iteration is
what a fixed loop keeps on purpose (detached outputs); the heap moves by up to ~100 B.
"""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from memory_params import DEVICES  # noqa: E402

from torchleak.engine import lint_source  # noqa: E402
from torchleak.fix import fix_source  # noqa: E402
from torchleak.rule import LeakDemo, Rule  # noqa: E402
from torchleak.rules import ALL_RULES  # noqa: E402
from torchleak.runtime import Growth, measure_demo  # noqa: E402

FIXED_TENSOR_TOLERANCE = 512
FIXED_HEAP_TOLERANCE = 512
#: The autofixed peak may exceed the hand-written fix's by this much (a detached output's bytes).
PEAK_TOLERANCE = 512
ITERS = 20
LOOP = "\nfor batch in loader:\n"

DEMO_RULES = [pytest.param(rule, id=rule.code) for rule in ALL_RULES if rule.demo is not None]


def autofixed(demo: LeakDemo) -> tuple[LeakDemo, str]:
    """The demo with its leaky step replaced by what --fix --unsafe-fixes makes of it, and the
    fixed program (setup and loop, as the linter saw it)."""
    program = demo.program(demo.leaky)
    outcome = fix_source(program, unsafe=True)
    assert outcome.applied, f"nothing was fixed in:\n{program}"
    setup, loop, body = outcome.source.partition(LOOP)
    assert loop, outcome.source
    step = "\n".join(line[4:] for line in body.splitlines())
    return dataclasses.replace(demo, setup=setup, leaky=step), outcome.source


def _explain(growth: Growth) -> str:
    return f"{growth.summary()}; tensor deltas {growth.tensor_deltas}; heap deltas {growth.heap_deltas}"


@pytest.mark.parametrize("rule", DEMO_RULES)
def test_the_autofixed_demo_lints_clean(rule: type[Rule]) -> None:
    assert rule.demo is not None
    _, program = autofixed(rule.demo)
    assert lint_source(program) == [], program


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rule", DEMO_RULES)
def test_the_autofixed_demo_does_not_grow(rule: type[Rule], device: str) -> None:
    demo = rule.demo
    assert demo is not None
    fixed_demo, program = autofixed(demo)
    heap = demo.meter == "heap"
    # An "error" demo's leaky step raises on iteration 2; the autofixed one must not raise at all.
    growth = measure_demo(fixed_demo, "leaky", iters=ITERS, device=device, heap=heap)
    print(f"\n{rule.code} autofixed on {device}: {_explain(growth)}")
    assert growth.bytes_per_iter <= FIXED_TENSOR_TOLERANCE, f"{_explain(growth)}\n{program}"
    if heap:
        assert growth.heap_bytes_per_iter is not None
        assert growth.heap_bytes_per_iter <= FIXED_HEAP_TOLERANCE, f"{_explain(growth)}\n{program}"
    if demo.meter == "peak":
        by_hand = measure_demo(demo, "fixed", iters=ITERS, device=device, heap=False)
        assert growth.peak_bytes <= by_hand.peak_bytes + PEAK_TOLERANCE, (
            f"autofixed: {_explain(growth)}\nby hand: {_explain(by_hand)}"
        )
