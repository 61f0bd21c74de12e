"""The ``leakcheck`` fixture, run by a real pytest session (pytester) as a user's suite runs it."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

USER_TESTS = """
import torch
import torch.nn.functional as F

model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
inputs, targets = torch.randn(16, 32), torch.randn(16, 1)


def test_leaky_step(leakcheck):
    history = []

    def train_step():
        loss = F.mse_loss(model(inputs), targets)
        history.append(loss)  # keeps every step's graph

    leakcheck(train_step, iters=10)


def test_fixed_step(leakcheck):
    history = []

    def train_step():
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        history.append(loss.item())

    growth = leakcheck(train_step, iters=10)
    assert growth.bytes_per_iter == 0


def test_heap_only_leak(leakcheck):
    state = {"total": 0}

    def train_step():
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()  # frees the saved tensors: what is left is autograd nodes
        state["total"] += loss

    leakcheck(train_step, iters=10)


def test_raised_limit(leakcheck):
    history = []

    def train_step():
        history.append(F.mse_loss(model(inputs), targets))

    leakcheck(train_step, iters=10, max_bytes_per_iter=10**9, max_heap_bytes_per_iter=None)
"""


@pytest.fixture
def user_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # Load the plugin by name with entry points off, so the test holds whether or not this
    # checkout was pip-installed (and so its pytest11 entry point registered).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    pytester.makepyfile(test_user=USER_TESTS)
    return pytester


def test_fails_a_leaky_step_and_shows_the_limit_next_to_the_measure(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest("-p", "torchleak.pytest_plugin", "-k", "leaky_step")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*leakcheck: the step keeps memory alive every iteration on cpu over 10 iterations*",
            "*tensor memory grows * B per iteration (limit 1,024 B); per-iteration deltas: *",
        ]
    )


def test_passes_the_fixed_step(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest("-p", "torchleak.pytest_plugin", "-k", "fixed_step")
    result.assert_outcomes(passed=1)


def test_catches_a_leak_that_holds_no_tensor_bytes(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest("-p", "torchleak.pytest_plugin", "-k", "heap_only")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*host heap grows * B per iteration (limit 2,048 B)*"])
    result.stdout.no_fnmatch_line("*tensor memory grows*")


def test_limits_can_be_raised(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest("-p", "torchleak.pytest_plugin", "-k", "raised_limit")
    result.assert_outcomes(passed=1)


def test_skips_with_a_reason_without_torch(user_suite: pytest.Pytester) -> None:
    # In a subprocess: a conftest that hides torch there runs before the plugin is asked for it.
    user_suite.makeconftest("import sys\nsys.modules['torch'] = None\n")
    user_suite.makepyfile(test_no_torch="def test_step(leakcheck):\n    leakcheck(lambda: None)\n")
    result = user_suite.runpytest_subprocess("-p", "torchleak.pytest_plugin", "-rs", "test_no_torch.py")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*leakcheck needs torch, which is not installed*"])


def test_is_registered_as_a_pytest11_entry_point() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points.pytest11]\ntorchleak = "torchleak.pytest_plugin"' in text
    installed = [e for e in entry_points(group="pytest11") if e.name == "torchleak"]
    if installed:  # only once the checkout has been (re)installed with this entry point
        assert installed[0].value == "torchleak.pytest_plugin"
