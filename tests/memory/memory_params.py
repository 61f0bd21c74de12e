"""Shared parameters of the memory suite: the devices, and the figure each demo states.

Nothing here imports torch at module level, so collecting the suite without torch skips it
(each test module starts with ``pytest.importorskip("torch")``) instead of erroring.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from torchleak.rule import LeakDemo

#: "2,097,152 B" in a demo's expectation: the figure the suite asserts (the first one stated).
_STATED_BYTES = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+) B\b")
#: "(984,576 B on CUDA)": a figure for CUDA, where it differs from the CPU one.
_STATED_CUDA_BYTES = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+) B on CUDA\b")


def stated_bytes(demo: LeakDemo, device: str = "cpu") -> int:
    """The byte figure a demo's ``expectation`` states for ``device``, which the suite asserts.

    The first "N B" is the CPU figure. Tensor growth on CUDA is at least that (the caching
    allocator rounds blocks up to 512 B), but a peak need not be: CUDA kernels allocate other
    temporaries in backward, so a peak demo states its CUDA figure as "N B on CUDA".
    """
    cuda = _STATED_CUDA_BYTES.search(demo.expectation) if device == "cuda" else None
    match = cuda or _STATED_BYTES.search(demo.expectation)
    if match is None:
        raise AssertionError(f"the demo's expectation states no figure in bytes: {demo.expectation!r}")
    return int(match.group(1).replace(",", ""))


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


#: CPU always; CUDA where a device is present.
DEVICES: list[Any] = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=[
            pytest.mark.cuda,
            pytest.mark.skipif(not _cuda_available(), reason="no CUDA device: torch.cuda.is_available() is False"),
        ],
    ),
]
