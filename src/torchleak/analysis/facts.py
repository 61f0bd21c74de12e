"""What one walk over a file learns, in a form rules can query without walking again."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Container, Iterator, Optional, Union

import libcst as cst

from torchleak.analysis.summaries import Summary
from torchleak.analysis.values import ATTACHED, DETACHED, UNKNOWN, Kind, State, Value


# The abstract value lives in values.py; these names are re-exported for the rules.
__all__ = ["ATTACHED", "DETACHED", "UNKNOWN", "State", "Value", "Kind"]


#: A ``for``/``while`` statement, a per-batch method, or a comprehension whose element is a call
#: (``[learner.step(b) for b in batches]`` runs a training step per element).
LoopNode = Union[cst.For, cst.While, cst.FunctionDef, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]


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
    #: Of a per-batch method: the names its function binds (parameters included); any other
    #: root (``Bottleneck.cached``, a module-level ``HISTORY``) is a global that outlives a call.
    local_names: Optional[frozenset[str]] = None
    #: Names bound to graph-attached values when the loop was entered.
    attached_on_entry: frozenset[str] = frozenset()
    has_backward: bool = False
    has_optimizer_step: bool = False
    #: The body runs a module's forward pass (directly or through a function it calls).
    has_forward: bool = False
    #: Inside a method of an ``nn.Module`` (a loop over layers or time steps of one forward).
    in_module_method: bool = False
    #: Walks modules (``for layer in self.layers``, ``self.flows[k](x)``): the layers of one
    #: forward pass, whatever the function returns.
    over_layers: bool = False
    #: How many ``if``/``try`` branches enclose the loop statement.
    branch_depth: int = 0
    #: The body passes an attached value to a callee the analysis cannot see into (another
    #: package's function): it may backward it, so "nothing backwards it" is not certain.
    opaque_use: bool = False

    @property
    def is_batch_loop(self) -> bool:
        """Runs once per batch: it trains (backward or optimizer step), runs a forward pass
        outside a module's own methods, or walks a loader."""
        if self.over_layers and not self.has_optimizer_step:
            return False  # one forward, layer by layer (a gradient penalty per discriminator included)
        if self.per_batch_method or self.has_backward or self.has_optimizer_step:
            return True
        return not self.in_module_method and (self.has_forward or self.over_loader)

    def contains(self, seq: int) -> bool:
        return self.start <= seq <= self.end

    def outlives_iteration(self, key: str) -> bool:
        """Whether ``key`` keeps its value from one iteration of this loop to the next."""
        prefixes = key_prefixes(key)
        if self.per_batch_method:
            # Locals die with the call; an attribute lives on unless the method resets it first,
            # and so does what a global (a class attribute, a module-level list) holds.
            if key.startswith("self."):
                return all(self.first_access.get(p) != "write" for p in prefixes[1:])
            if self.local_names is None or prefixes[0] in self.local_names:
                return False
            return all(self.first_access.get(p) != "write" for p in prefixes)
        for prefix in prefixes:
            access = self.first_access.get(prefix)
            if access is not None:
                return access == "read"
        return False

    def enclosing(self) -> Iterator[Loop]:
        loop: Optional[Loop] = self
        while loop is not None:
            yield loop
            loop = loop.parent


@functools.lru_cache(maxsize=16384)
def key_prefixes(key: str) -> tuple[str, ...]:
    """``a``, ``a.b``, ``a.b.c`` for ``a.b.c``: the outermost owner first (memoised: the walks
    ask it about the same few names tens of thousands of times)."""
    parts = key.split(".")
    return tuple(".".join(parts[: i + 1]) for i in range(len(parts)))


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
    #: For a call whose callee does the accumulating: ``AverageMeter.update (line 25)``.
    via: str = ""
    #: For a call of another module's helper that keeps what it is given in one place: the
    #: helper project-wide (``utils.py:AverageMeter.update``). When this is the project's only
    #: call of it, the helper's line is the one fix: reported there, not here.
    helper: str = ""
    #: For a call of a helper of this file that keeps what it is given in one place: its name
    #: (when every call of it leaks, the helper's line is the one fix).
    kept_by: str = ""
    #: The statement is in this helper, which sums what its caller gives it: the fix goes there.
    in_callee: str = ""


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
    #: For a call whose callee does the storing: ``Tracker.log (line 12)``.
    via: str = ""
    #: The statement is in this callee, which computes the attached value itself (a method that
    #: runs the policy and appends its output): the fix goes there, not at the call.
    in_callee: str = ""
    #: The callee also returns (a value computed from) the argument it stores: passing it
    #: detached would cut the caller's gradient, so the fix is in the callee.
    argument_returned: bool = False
    #: The callee keeps (a value computed from) what the caller gave it: an attached value
    #: already, so only ``.detach()`` cuts it (no ``no_grad`` around the call would).
    given: bool = False
    #: As ``Accumulation.helper`` and ``Accumulation.kept_by``.
    helper: str = ""
    kept_by: str = ""
    #: Reported in the helper, what the caller gave it holds several tensors (``pool([fake_a,
    #: fake_b])``): advice names each tensor, never ``.detach()`` of the parameter.
    given_several: bool = False


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
    #: For ``kind == "call"``: the summary of the helper that backwards.
    callee: Optional[Summary] = None
    #: ``create_graph=flag`` whose value the file does not settle (the calls of the function
    #: pass ``True`` and its default is ``False``): it may retain the graph whatever
    #: ``retain_graph`` says.
    create_graph_maybe: bool = False


@dataclass(frozen=True, eq=False)
class Binding(Event):
    """A name (re)bound in a statement: ``h = h.detach()``, ``out, h = model(x, h)``."""

    key: str
    value: Value
    #: Names the bound value was computed from.
    mentions: frozenset[str]
    #: The value came out of a call that received the name's previous value as an argument.
    fed_to_call: bool = False
    #: For a call whose callee rebinds the state: ``Model.step (line 30)``.
    via: str = ""
    #: How many ``if``/``try`` branches enclose the statement in its function.
    branch_depth: int = 0
    #: The statement is in this callee (a module's ``forward`` updating ``self``), not in the
    #: loop's function: the fix goes there.
    in_callee: str = ""
    #: An in-place reset (``self.v_mem.zero_()``): the values are new, the autograd history of
    #: an attached tensor stays (measured: ``ZeroBackward0`` points at the previous graph).
    keeps_history: bool = False
    #: Bound in the body of ``if <key> is None:``: a first value, not a reset of every iteration.
    first_value: bool = False
    #: For a call of another module's helper that carries what it is given in one place: the
    #: helper's key (``utils.py:GapTracker.update``); its module reports the carry at its own
    #: statement when nothing else in the project calls it.
    helper: str = ""
    #: For a state another module's helper carries on its object and backwards with
    #: ``retain_graph=True`` (``BPRLoss.stageOne``): that helper, whose module reports the retain
    #: papering over it (TLK202).
    retained_in: str = ""


@dataclass(frozen=True, eq=False)
class CallSite:
    """A call of a function of the file (or of the project): where, and from which loop."""

    function: Function
    callee: str
    seq: int
    loop: Optional[Loop]
    #: The call is inside a comprehension (``[cam(img) for img in images]``): once per element.
    repeated: bool = False
    #: Parameter positions the call binds to a value that records a graph (attached, or a
    #: leaf requiring grad); the others receive data, numbers or values it cannot classify.
    graph_arguments: frozenset[int] = frozenset()
    #: ``id`` of the call node (a loop body may be walked more than once: one call, one id).
    call_id: int = 0


@dataclass(frozen=True, eq=False)
class GradReset(Event):
    """``optimizer.zero_grad()``, ``p.grad = None``."""

    #: For ``x.grad = None``: ``x``, the one tensor reset; "" for the parameters of a model or
    #: an optimizer (``zero_grad()``), which reset no input made to require grad.
    tensor: str = ""


@dataclass(eq=False)
class Function:
    """A function body (or the module body) and what its statements did."""

    node: Union[cst.FunctionDef, cst.Module]
    name: str
    #: Names each name's value flows into (``b = f(a)`` gives ``a -> {b}``).
    flows_to: dict[str, set[str]] = field(default_factory=dict)
    #: Like ``flows_to`` but only through values, not through the callables that compute them
    #: (``out = model(x)`` gives ``x -> {out}``, not ``model -> {out}``).
    data_flows_to: dict[str, set[str]] = field(default_factory=dict)
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
    #: What callers need to know about this function.
    summary: Summary = field(default_factory=lambda: Summary("<module>"))
    #: The class a method belongs to.
    cls: Optional[str] = None
    #: Keys of accumulators that reach the return value.
    returned_keys: set[str] = field(default_factory=set)
    #: The statement behind each effect of the summary, by ``id`` of the effect.
    effect_nodes: dict[int, cst.CSTNode] = field(default_factory=dict)
    #: The store behind a store effect of an argument's value (not attached in the function
    #: itself, so not among ``stores``), by ``id`` of the effect: where its fix goes.
    effect_stores: dict[int, "Store"] = field(default_factory=dict)

    def release(self) -> None:
        """Drop the events: each names its function, so together they form reference cycles
        that only the cyclic collector frees (and through them the whole tree)."""
        self.accumulations = []
        self.stores = []
        self.backwards = []
        self.bindings = []
        self.grad_resets = []
        self.double_backward_grads = []
        self.effect_stores = {}

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

    def sources_of(self, keys: frozenset[str] | set[str], *, data_only: bool = False, stop: Container[str] = ()) -> set[str]:
        """Every name that flows, directly or not, into one of ``keys`` (not through a name of
        ``stop``: what flowed into a value without graph carries none of its graph on)."""
        reverse: dict[str, set[str]] = {}
        for source, targets in (self.data_flows_to if data_only else self.flows_to).items():
            for target in targets:
                reverse.setdefault(target, set()).add(source)
        seen = set(keys)
        stack = list(keys)
        while stack:
            current = stack.pop()
            if current in stop:
                continue
            for source in reverse.get(current, ()):
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
    #: What ``self.<attribute>`` holds in a class of the file: (class, attribute) -> value.
    attributes: dict[tuple[str, str], Value] = field(default_factory=dict)
    #: The classes of the file that are modules (``nn.Module`` subclasses, classes with ``forward``).
    module_classes: set[str] = field(default_factory=set)
    #: Classes whose constructor keeps its arguments as fields -> the fields they declare.
    record_classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: ``id`` of the calls that run a forward pass (directly or in a helper): a new graph each time.
    forward_calls: set[int] = field(default_factory=set)
    #: ``id`` of each call written in a ``return`` -> the function returning it (made once, when
    #: a query first asks which functions hand a callee's result on).
    returned_calls: Optional[dict[int, str]] = None
    #: Functions of the file whose results another module of the project backwards (asked
    #: only when a finding depends on it: the project index reads the importers then).
    backwarded_by_importers: Container[str] = frozenset()
    #: What the file's imports bind and who imports it (``summaries.Externals``), for queries
    #: that look at the importers (their per-batch calls of this file's helpers).
    externals: Any = None
    #: Raw uses recorded by the walk, for the evidence pass (``flow._Observations``).
    observations: Any = None
    #: What the evidence pass learned (``flow.Evidence``): callers that backward a function's
    #: result, read it as a number, or call it at all.
    evidence: Any = None
    #: Every call of a function of the file, in walk order.
    call_sites: list[CallSite] = field(default_factory=list)
    #: Keys read through ``.detach()``/``.item()`` somewhere (``torch.stack(self.buf.logp).detach()``):
    #: evidence that what they hold is consumed as data, not backwarded.
    detached_reads: set[str] = field(default_factory=set)
    #: Containers drawn from at random (``random.sample(self.memory, n)``): replay memories.
    drawn_at_random: set[str] = field(default_factory=set)
    #: ``id`` of a call the walk made up -> the call of the file it stands for (``compute()`` of
    #: ``compute = functools.partial(f, a)`` is walked as ``f(a)``): reported at the real one.
    stand_ins: dict[int, cst.CSTNode] = field(default_factory=dict)
    #: Every name called in the file, bare or as an attribute (``reset`` for ``m.reset()``);
    #: computed on first use (``called_names``).
    _called_names: Optional[frozenset[str]] = None

    def called_names(self) -> frozenset[str]:
        """The names the file calls anywhere, resolved or not (``detach_states`` for
        ``m.detach_states()`` on an object of unknown class)."""
        if self._called_names is None:
            names: set[str] = set()
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                current = stack.pop()
                if type(current) is cst.Call:
                    func = current.func
                    if type(func) is cst.Attribute:
                        names.add(func.attr.value)
                    elif type(func) is cst.Name:
                        names.add(func.value)
                stack.extend(current.children)
            self._called_names = frozenset(names)
        return self._called_names

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def release(self) -> None:
        """Break the reference cycles the facts hold (events name their function), once nothing
        reads them any more: reference counting then frees them and the tree at once, where
        the cyclic collector took about 0.15 s to find 195k such objects after a 5,000-line
        training file."""
        for function in self.functions:
            function.release()
