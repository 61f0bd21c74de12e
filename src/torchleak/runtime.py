"""Measure what a training step keeps alive per iteration: tensor bytes, host heap, peak.

The linter never needs torch, so this module imports it only inside the functions that
measure. Three meters, all read at iteration boundaries:

* **Tensor bytes, CPU.** The default CPU allocator keeps an exact running total of the bytes
  it handed out while memory profiling is on, and reports it with every allocation and free.
  We switch that reporting on through the profiler's own entry points but record only the
  ``USER_SCOPE`` of ``record_function``, so no operator is traced. On a 12-layer MLP step the
  full ``torch.profiler.profile(profile_memory=True)`` cost 1.7-3.1x the plain step here; this
  way the step ran at 0.7-1.1x, within timing noise. A marker tensor allocated at each boundary
  reads the running total there. Growth figures are exact: identical to the byte across runs
  and processes, and they see tensors that only the autograd graph holds. The peak is the
  highest running total inside the measured iterations; it is exact for one run, but where
  the order of allocations inside backward changes between runs (the GRU demos, about 1 run
  in 15) it can differ by a few tensors. Freeing a tensor that was allocated before the
  measurement is not counted (torch warns once: "Memory block of unknown size was allocated
  before the profiling started"), which the warm-up makes irrelevant for steady state.
* **Tensor bytes, CUDA.** ``torch.cuda.synchronize()`` then ``memory_allocated()`` at each
  boundary; ``reset_peak_memory_stats()`` / ``max_memory_allocated()`` for the peak. The caching
  allocator rounds each block up to 512 B, so figures are multiples of 512.
* **Host heap.** glibc's ``mallinfo2()`` (bytes in use in every malloc arena plus mmapped
  chunks), through ctypes. It catches leaks that hold no tensor storage, only autograd nodes
  (``total += loss`` with a ``backward()`` every step). It also counts CPU tensor storage, which
  glibc serves. It is not exact: Python objects larger than 512 B, list and dict resizes and
  malloc's own bookkeeping move it by up to a few hundred bytes per iteration; averaged over 20
  iterations the fixed demos stay within about +-100 B per iteration. On a C library without
  ``mallinfo2`` (musl, macOS) the heap figures are ``None``.

Python cycles are collected at every boundary (cheaply: objects that existed before the
measurement are frozen out of the collector), so a figure counts only what stays reachable.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import itertools
import time
from contextlib import contextmanager
from dataclasses import dataclass
from textwrap import dedent
from types import CodeType
from typing import TYPE_CHECKING, Any, Callable, Final, Iterable, Iterator, Literal

if TYPE_CHECKING:
    from torchleak.rule import LeakDemo

#: Size of the marker tensor allocated at each iteration boundary on CPU. An odd size that no
#: float tensor has, so its allocation event cannot be mistaken for the step's own.
_MARKER_BYTES: Final = 4093

__all__ = ["DemoStep", "Growth", "StepRaised", "demo_step", "heap_in_use", "measure", "measure_demo"]


class StepRaised(Exception):
    """The measured step raised; ``iteration`` counts from 1 and includes the warm-up."""

    def __init__(self, iteration: int, error: BaseException) -> None:
        super().__init__(f"iteration {iteration} raised {type(error).__name__}: {error}")
        self.iteration = iteration
        self.error = error


@dataclass(frozen=True)
class Growth:
    """What one step kept alive per iteration, measured after the warm-up."""

    device: str
    iters: int
    #: Mean growth of tensor memory per iteration (exact bytes: the deltas are exact).
    bytes_per_iter: float
    #: Mean growth of the host heap per iteration; ``None`` without glibc's ``mallinfo2``.
    heap_bytes_per_iter: float | None
    #: Highest tensor memory reached during the measured iterations, above the level when
    #: the measurement began (so state the warm-up created counts, e.g. a retained graph).
    peak_bytes: int
    #: Tensor memory at the end of each measured iteration minus at its start.
    tensor_deltas: tuple[int, ...]
    #: The same for the host heap; empty when the heap cannot be read.
    heap_deltas: tuple[int, ...]
    #: Wall-clock seconds of each measured step (outside any profiler).
    step_seconds: tuple[float, ...]

    @property
    def steady(self) -> bool:
        """Whether every iteration changed tensor memory by the same number of bytes."""
        return len(set(self.tensor_deltas)) <= 1

    def summary(self) -> str:
        heap = "n/a" if self.heap_bytes_per_iter is None else f"{self.heap_bytes_per_iter:,.0f} B"
        return (
            f"tensor {self.bytes_per_iter:,.0f} B/iter, heap {heap}/iter, "
            f"peak {self.peak_bytes:,} B on {self.device} over {self.iters} iterations"
        )


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as error:  # the linter runs without torch; measuring cannot
        raise ImportError(
            "torchleak.runtime needs torch: pip install 'torchleak[memory]'"
        ) from error
    return torch


class _MallInfo2(ctypes.Structure):
    # struct mallinfo2 from <malloc.h>, glibc >= 2.33: ten size_t fields in this order.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]


@functools.lru_cache(maxsize=1)
def _mallinfo2() -> Callable[[], _MallInfo2] | None:
    try:
        function = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    function.argtypes = []
    function.restype = _MallInfo2
    return function


def heap_in_use() -> int | None:
    """Bytes malloc has handed out and not taken back (arenas plus mmapped chunks), or None."""
    read = _mallinfo2()
    if read is None:
        return None
    info = read()
    return int(info.uordblks) + int(info.hblkhd)


@contextmanager
def _collect_only_new_objects() -> Iterator[None]:
    """Freeze what exists now so the per-boundary ``gc.collect()`` only walks new objects.

    No ``gc.collect()`` first: it costs ~0.2 s with torch loaded, and garbage frozen here
    existed before the measurement, so it cannot change any figure. Where the program had
    frozen objects itself (some environments do after start-up), ``gc.unfreeze()`` would
    thaw theirs too, so what this adds stays frozen, as theirs does.
    """
    frozen_by_us = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        yield
    finally:
        if frozen_by_us:
            gc.unfreeze()


def _call(step: Callable[[], object], iteration: int) -> float:
    started = time.perf_counter()
    try:
        step()
    except Exception as error:
        raise StepRaised(iteration, error) from error
    return time.perf_counter() - started


def _deltas(levels: list[int]) -> tuple[int, ...]:
    return tuple(after - before for before, after in zip(levels, levels[1:]))


def _mean_growth(levels: list[int], iters: int) -> float:
    return (levels[-1] - levels[0]) / iters


def _heap_pass(
    step: Callable[[], object], iters: int, warmup: int, sync: Callable[[], None]
) -> tuple[list[int], tuple[float, ...]]:
    """Run warm-up plus ``iters`` steps with no profiler on; heap levels and step times."""
    for iteration in range(1, warmup + 1):
        _call(step, iteration)
    levels: list[int] = []
    seconds: list[float] = []

    def read() -> None:
        sync()
        gc.collect()
        level = heap_in_use()
        if level is not None:
            levels.append(level)

    read()
    for iteration in range(warmup + 1, warmup + iters + 1):
        started = time.perf_counter()
        _call(step, iteration)
        sync()
        seconds.append(time.perf_counter() - started)
        read()
    return levels, tuple(seconds)


def _cpu_tensor_pass(
    torch: Any, step: Callable[[], object], iters: int, warmup: int
) -> tuple[list[int], int, tuple[float, ...]]:
    """Tensor-byte levels at each boundary after the warm-up, the peak, and step times."""
    from torch._C import _autograd
    from torch._C._profiler import (
        ProfilerActivity,
        ProfilerConfig,
        ProfilerState,
        RecordScope,
        _EventType,
        _ExperimentalConfig,
    )

    if _autograd._profiler_enabled():
        raise RuntimeError("torchleak.runtime.measure cannot run inside another torch profiler")
    config = ProfilerConfig(
        ProfilerState.KINETO,
        False,  # report_input_shapes
        True,  # profile_memory: makes the CPU allocator report its running total
        False,  # with_stack
        False,  # with_flops
        False,  # with_modules
        _ExperimentalConfig(),
    )
    activities = {ProfilerActivity.CPU}
    # Markers stay alive until the end so each one's address identifies its allocation event.
    markers: list[Any] = []

    def mark() -> None:
        gc.collect()
        markers.append(torch.empty(_MARKER_BYTES, dtype=torch.uint8))

    _autograd._prepare_profiler(config, activities)
    # Only user scopes: operators are not traced, allocations are still reported.
    # torch's stub omits the binding's third parameter, ``scopes`` (checked on torch 2.11 and 2.13).
    _autograd._enable_profiler(config, activities, {RecordScope.USER_SCOPE})  # type: ignore[call-arg]
    try:
        mark()  # the level when the measurement began, before the warm-up
        for iteration in range(1, warmup + 1):
            _call(step, iteration)
        mark()  # the level the measured iterations start from
        seconds: list[float] = []
        for iteration in range(warmup + 1, warmup + iters + 1):
            seconds.append(_call(step, iteration))
            mark()
    finally:
        result = _autograd._disable_profiler()
    marker_index = {marker.data_ptr(): index for index, marker in enumerate(markers)}

    # Allocations nest under user scopes when the step uses record_function: walk the tree
    # in order (preorder), then sort by time; the sort is stable, so ties keep that order.
    allocations: list[Any] = []
    pending = list(reversed(result.experimental_event_tree()))
    while pending:
        event = pending.pop()
        if event.tag == _EventType.Allocation:
            allocations.append(event)
        pending.extend(reversed(event.children))
    allocations.sort(key=lambda event: event.start_time_ns)

    # Walk the allocator's running total in time order, less the markers alive at each point.
    origin = 0
    levels: list[int] = []
    highest: int | None = None
    markers_seen = 0
    for event in allocations:
        fields = event.extra_fields
        at_boundary = (
            fields.alloc_size == _MARKER_BYTES and marker_index.get(fields.ptr) == markers_seen
        )
        if at_boundary:
            markers_seen += 1
        level = int(fields.total_allocated) - markers_seen * _MARKER_BYTES
        if at_boundary:
            if markers_seen == 1:
                origin = level
            else:
                levels.append(level)
        if markers_seen >= 2:  # from the start of the first measured iteration on
            highest = level if highest is None else max(highest, level)
        if markers_seen == len(markers):
            break
    if markers_seen != len(markers) or highest is None:
        raise RuntimeError("the profiler did not report every boundary marker's allocation")
    return levels, highest - origin, tuple(seconds)


def _measure_cpu(
    torch: Any, step: Callable[[], object], iters: int, warmup: int, heap: bool
) -> Growth:
    levels, peak, seconds = _cpu_tensor_pass(torch, step, iters, warmup)
    heap_levels: list[int] = []
    if heap:  # a second run with no profiler on, whose event buffers would count as heap
        heap_levels, seconds = _heap_pass(step, iters, warmup, sync=lambda: None)
    return Growth(
        device="cpu",
        iters=iters,
        bytes_per_iter=_mean_growth(levels, iters),
        heap_bytes_per_iter=_mean_growth(heap_levels, iters) if heap_levels else None,
        peak_bytes=peak,
        tensor_deltas=_deltas(levels),
        heap_deltas=_deltas(heap_levels),
        step_seconds=seconds,
    )


_cuda_libraries_ready: set[str] = set()


def _warm_cuda_libraries(torch: Any, device: Any) -> None:
    """Create cuBLAS's workspace before the first measurement on ``device``.

    cuBLAS allocates it through the caching allocator on the first matrix product of the
    process and keeps it (65 MiB on an H100 with torch 2.11): counted against one step's
    warm-up, it would inflate that measurement's peak.
    """
    if str(device) in _cuda_libraries_ready:
        return
    weight = torch.ones(8, 8, device=device, requires_grad=True)
    (torch.ones(8, 8, device=device) @ weight).sum().backward()
    torch.cuda.synchronize(device)
    _cuda_libraries_ready.add(str(device))


def _measure_cuda(
    torch: Any, device: Any, step: Callable[[], object], iters: int, warmup: int, heap: bool
) -> Growth:
    cuda = torch.cuda

    def sync() -> None:
        cuda.synchronize(device)

    _warm_cuda_libraries(torch, device)
    sync()
    gc.collect()
    start_level = int(cuda.memory_allocated(device))
    for iteration in range(1, warmup + 1):
        _call(step, iteration)
    levels: list[int] = []
    heap_levels: list[int] = []
    seconds: list[float] = []

    def read() -> None:
        sync()
        gc.collect()
        levels.append(int(cuda.memory_allocated(device)))
        heap_level = heap_in_use() if heap else None
        if heap_level is not None:
            heap_levels.append(heap_level)

    read()
    cuda.reset_peak_memory_stats(device)
    for iteration in range(warmup + 1, warmup + iters + 1):
        started = time.perf_counter()
        _call(step, iteration)
        sync()
        seconds.append(time.perf_counter() - started)
        read()
    peak = int(cuda.max_memory_allocated(device)) - start_level
    return Growth(
        device=str(device),
        iters=iters,
        bytes_per_iter=_mean_growth(levels, iters),
        heap_bytes_per_iter=_mean_growth(heap_levels, iters) if heap_levels else None,
        peak_bytes=peak,
        tensor_deltas=_deltas(levels),
        heap_deltas=_deltas(heap_levels),
        step_seconds=tuple(seconds),
    )


def measure(
    step: Callable[[], object],
    iters: int = 20,
    warmup: int = 2,
    device: str = "cpu",
    heap: bool = True,
) -> Growth:
    """Run ``step`` ``warmup + iters`` times and report what each measured iteration kept.

    On CPU with ``heap=True`` the step runs twice over: once with the allocator reporting
    tensor bytes, once with nothing on to read the heap and time the steps (the profiler's
    own event buffers would otherwise show up in the heap). State the step carries simply
    goes on growing across both runs; only per-iteration differences are reported.
    ``heap=False`` skips the heap (its figures are then ``None``) and the second run.

    Raises ``StepRaised`` (with the iteration, counted from 1) if the step raises.
    """
    if iters < 1 or warmup < 0:
        raise ValueError("iters must be at least 1 and warmup at least 0")
    torch = _import_torch()
    target = torch.device(device)
    with _collect_only_new_objects():
        if target.type == "cpu":
            return _measure_cpu(torch, step, iters, warmup, heap)
        if target.type == "cuda":
            if target.index is None:
                target = torch.device("cuda", torch.cuda.current_device())
            return _measure_cuda(torch, target, step, iters, warmup, heap)
    raise ValueError(f"cannot measure on {device!r}: only cpu and cuda are supported")


def _cycle(loader: Iterable[Any]) -> Iterator[Any]:
    """Iterate ``loader`` again and again (re-iterating it, as epochs do; nothing is cached)."""
    for _ in itertools.count():
        empty = True
        for item in loader:
            empty = False
            yield item
        if empty:
            raise ValueError("the demo's loader yields no batches")


def demo_namespace(device: str) -> dict[str, Any]:
    """The names a demo's setup may use without importing them: torch, nn, F and device."""
    torch = _import_torch()
    return {
        "__name__": "__torchleak_demo__",
        "torch": torch,
        "nn": torch.nn,
        "F": torch.nn.functional,
        "device": torch.device(device),
    }


class DemoStep:
    """One iteration of a demo's body, run in the namespace its setup built."""

    def __init__(self, namespace: dict[str, Any], body: CodeType) -> None:
        if "loader" not in namespace:
            raise ValueError("a LeakDemo's setup must bind `loader`")
        self.namespace = namespace
        self._body = body
        self._batches = _cycle(namespace["loader"])

    def __call__(self) -> None:
        self.namespace["batch"] = next(self._batches)
        exec(self._body, self.namespace)


def demo_step(demo: LeakDemo, which: Literal["leaky", "fixed"], device: str = "cpu") -> DemoStep:
    """Run the demo's setup now and return one iteration of its ``leaky`` or ``fixed`` body."""
    namespace = demo_namespace(device)
    exec(compile(dedent(demo.setup), f"<demo setup on {device}>", "exec"), namespace)
    body = compile(dedent(getattr(demo, which)).strip("\n"), f"<{which} step>", "exec")
    return DemoStep(namespace, body)


def measure_demo(
    demo: LeakDemo,
    which: Literal["leaky", "fixed"],
    iters: int = 20,
    warmup: int = 2,
    device: str = "cpu",
    heap: bool = True,
    threads: int | None = 1,
) -> Growth:
    """Run a rule's demo (setup once, then its ``leaky`` or ``fixed`` body) and measure it.

    The demo runs with a fixed seed and, by default, on one CPU thread, so its figures do not
    depend on the machine's core count or on other load (two threads on a two-core machine
    that is busy elsewhere ran 30x slower here). For ``meter == "error"`` demos the leaky
    body raises ``StepRaised``; its ``error`` is the original exception.
    """
    if which not in ("leaky", "fixed"):
        raise ValueError(f"which must be 'leaky' or 'fixed', not {which!r}")
    torch = _import_torch()
    threads_before = torch.get_num_threads()
    cuda_devices = [torch.device(device).index or 0] if torch.device(device).type == "cuda" else []
    try:
        if threads is not None:
            torch.set_num_threads(threads)
        with torch.random.fork_rng(devices=cuda_devices):
            torch.manual_seed(0)
            step = demo_step(demo, which, device)
            return measure(step, iters=iters, warmup=warmup, device=device, heap=heap)
    finally:
        torch.set_num_threads(threads_before)
