"""What one walk over a file learns, in a form rules can query without walking again."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

import libcst as cst


class State(enum.Enum):
    """Whether a value is attached to the autograd graph."""

    ATTACHED = "attached"
    DETACHED = "detached"  # known to carry no graph: .item(), .detach(), no_grad, literals
    UNKNOWN = "unknown"  # no rule reports what it cannot classify


@dataclass(frozen=True)
class Value:
    state: State
    #: Derived from ``torch.autograd.grad(..., create_graph=True)``.
    double_backward: bool = False

    @property
    def attached(self) -> bool:
        return self.state is State.ATTACHED


ATTACHED = Value(State.ATTACHED)
DETACHED = Value(State.DETACHED)
UNKNOWN = Value(State.UNKNOWN)

LoopNode = Union[cst.For, cst.While, cst.FunctionDef]


@dataclass(eq=False)
class Loop:
    """An iteration scope: a ``for``/``while`` body, or a method called once per batch."""

    node: LoopNode
    parent: Optional[Loop]
    #: A method such as ``training_step``: its locals die each call, ``self.*`` lives on.
    per_batch_method: bool = False
    #: Iterates over something named like a data loader.
    over_loader: bool = False
    #: Sequence numbers of the first and last event inside the body.
    start: int = 0
    end: int = 0
    #: For each name first touched in the body, whether that was a read or a write.
    first_access: dict[str, str] = field(default_factory=dict)
    #: Names the ``for`` statement binds (``step``, ``batch``).
    loop_targets: frozenset[str] = frozenset()
    #: Names bound to graph-attached values when the loop was entered.
    attached_on_entry: frozenset[str] = frozenset()
    has_backward: bool = False
    has_optimizer_step: bool = False

    @property
    def is_batch_loop(self) -> bool:
        """Runs once per batch: it trains (backward or optimizer step) or walks a loader."""
        return self.per_batch_method or self.has_backward or self.has_optimizer_step or self.over_loader

    def contains(self, seq: int) -> bool:
        return self.start <= seq <= self.end

    def outlives_iteration(self, key: str) -> bool:
        """Whether ``key`` keeps its value from one iteration of this loop to the next."""
        if self.per_batch_method:
            # Locals die with the call; an attribute lives on unless the method resets it first.
            return key.startswith("self.") and self.first_access.get(key) != "write"
        return self.first_access.get(key) == "read"

    def enclosing(self) -> Iterator[Loop]:
        loop: Optional[Loop] = self
        while loop is not None:
            yield loop
            loop = loop.parent


@dataclass(frozen=True, eq=False)
class Event:
    node: cst.CSTNode
    seq: int
    loop: Optional[Loop]
    function: Function


@dataclass(frozen=True, eq=False)
class Accumulation(Event):
    """``acc += x``, ``acc = acc + x``, ``acc = a * acc + b * x`` with ``x`` attached."""

    target: cst.BaseExpression  # e.g. ``stats["loss"]``
    key: str  # the name that owns it, e.g. ``stats``
    operator: str
    value_node: cst.BaseExpression  # the attached operand, e.g. ``loss``
    value: Value


@dataclass(frozen=True, eq=False)
class Store(Event):
    """``c.append(x)``, ``c[k] = x``, ``c += [x]`` with ``x`` attached."""

    container: cst.BaseExpression
    key: str
    method: str
    value_node: cst.BaseExpression
    value: Value
    #: Names mentioned by a subscript's index (``d[step] = x``).
    index_mentions: frozenset[str] = frozenset()


@dataclass(frozen=True, eq=False)
class BackwardCall(Event):
    """``x.backward(...)``, ``torch.autograd.grad(...)``, ``accelerator.backward(x)``."""

    kind: str  # "backward", "grad", "autograd.backward"
    mentions: frozenset[str]
    #: Names the differentiated outputs are computed from (for ``retain_graph``).
    output_mentions: frozenset[str]
    retain_graph: Optional[cst.Arg]
    create_graph: Optional[cst.Arg]
    #: The statement the call is part of (to find the names its result is bound to).
    statement: cst.CSTNode


@dataclass(frozen=True, eq=False)
class Binding(Event):
    """A name (re)bound in a statement: ``h = h.detach()``, ``out, h = model(x, h)``."""

    key: str
    value: Value
    #: Names the bound value was computed from.
    mentions: frozenset[str]
    #: The value came out of a call that received the name's previous value as an argument.
    fed_to_call: bool = False


@dataclass(frozen=True, eq=False)
class GradReset(Event):
    """``optimizer.zero_grad()``, ``p.grad = None``."""


@dataclass(eq=False)
class Function:
    """A function body (or the module body) and what its statements did."""

    node: Union[cst.FunctionDef, cst.Module]
    name: str
    #: Names each name's value flows into (``b = f(a)`` gives ``a -> {b}``).
    flows_to: dict[str, set[str]] = field(default_factory=dict)
    #: Names whose value reaches a backward call, a return, or leaves through an attribute.
    consumed: set[str] = field(default_factory=set)
    backward_mentions: set[str] = field(default_factory=set)
    returns: Value = DETACHED
    accumulations: list[Accumulation] = field(default_factory=list)
    stores: list[Store] = field(default_factory=list)
    backwards: list[BackwardCall] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    grad_resets: list[GradReset] = field(default_factory=list)
    #: ``torch.autograd.grad(..., create_graph=True)`` calls.
    double_backward_grads: list[BackwardCall] = field(default_factory=list)

    def bound_by(self, statement: cst.CSTNode) -> set[str]:
        """The names a statement binds."""
        return {binding.key for binding in self.bindings if binding.node is statement}

    def derived_from(self, keys: frozenset[str] | set[str]) -> set[str]:
        """Every name whose value is computed, directly or not, from one of ``keys``."""
        seen = set(keys)
        stack = list(keys)
        while stack:
            for target in self.flows_to.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    def sources_of(self, keys: frozenset[str] | set[str]) -> set[str]:
        """Every name that flows, directly or not, into one of ``keys``."""
        reverse: dict[str, set[str]] = {}
        for source, targets in self.flows_to.items():
            for target in targets:
                reverse.setdefault(target, set()).add(source)
        seen = set(keys)
        stack = list(keys)
        while stack:
            for source in reverse.get(stack.pop(), ()):
                if source not in seen:
                    seen.add(source)
                    stack.append(source)
        return seen


@dataclass
class FileFacts:
    module: cst.Module
    functions: list[Function] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    #: The top-level statement each event's nodes belong to (to resolve positions locally).
    top_of: dict[int, cst.CSTNode] = field(default_factory=dict)
    #: The value of every expression the walk evaluated, by ``id(node)``: which element of a
    #: stored ``{"loss": loss, "step": step}`` is the attached one (for fixes).
    values: dict[int, Value] = field(default_factory=dict)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
