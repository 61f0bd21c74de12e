"""TLK302: ``.backward(create_graph=True)``, which ties each parameter to its gradient's graph."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.facts import BackwardCall, Binding, FileFacts, Function, GradReset
from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.flow import iter_statements, mentions, single_assign, subtree
from torchleak.analysis.names import dotted, last_identifier
from torchleak.analysis.queries import bindings_by_key, reaching_binding
from torchleak.analysis.values import Kind
from torchleak.edits import code, line_holding
from torchleak.rule import Clean, Edit, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class BackwardCreateGraph(Rule):
    """## What it does
    Flags `loss.backward(create_graph=True)` (and `torch.autograd.backward(..., create_graph=True)`)
    unless the gradients are reset (`optimizer.zero_grad()`, `model.zero_grad()`, `p.grad = None`)
    afterwards in the same function or anywhere in the loop around the backward: a reset at the
    top of the next iteration breaks the cycle too (measured: 0 B/iteration, with
    `set_to_none=True` or `False`).

    ## Why is this bad?
    With `create_graph=True` the gradient stored in `p.grad` is itself attached to a graph that
    references `p`: a reference cycle between each parameter and its gradient that runs
    through C++ and that Python's garbage collector cannot break. PyTorch warns about it.
    Accumulated over steps without `zero_grad()`, `.grad` chains one graph per step; even
    with `zero_grad()` before each backward, the last graph, the gradients and the parameters
    outlive `del model`. `torch.autograd.grad(loss, params, create_graph=True)` returns the
    gradients instead of storing them, and avoids the cycle.

    ## Known problems
    A reset that happens in another function (a callback, the next epoch) is not seen.
    """

    code: ClassVar[str] = "TLK302"
    name: ClassVar[str] = "backward-create-graph"
    message: ClassVar[str] = (
        "'.backward({argument})'{when} makes a reference cycle between {cycle} "
        "that keeps the graph alive; use torch.autograd.grad(..., create_graph=True), or set "
        "{grads} to None after use"
    )
    fix_safety: ClassVar[FixSafety] = "unsafe"
    fix_rationale: ClassVar[str] = (
        "Only an unsafe fix, and only where the iteration steps an optimizer after the backward: it "
        "inserts `optimizer.zero_grad(set_to_none=True)` after that `step()`, which drops the graph held "
        "through `.grad`. It is unsafe because code that reads `.grad` after the step, or accumulates "
        "gradients across iterations on purpose, behaves differently. Otherwise (a function that hands "
        "the `.grad`s back, say) the fix is manual: `torch.autograd.grad(..., create_graph=True)` returns "
        "the gradients instead of storing them, or set them to None after their last use; which one is "
        "right depends on code the analysis does not see."
    )
    fixed_example: ClassVar[str] = """
        import torch
        for x, y in loader:
            loss = criterion(model(x), y)
            grads = torch.autograd.grad(loss, model.parameters(), create_graph=True)
            penalty = sum(g.pow(2).sum() for g in grads)
            (loss + penalty).backward()
            optimizer.step()
            optimizer.zero_grad()
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward(create_graph=True)  # TLK302
                penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
                penalty.backward()
                optimizer.step()
            """,
            "a gradient penalty computed from .grad",
        ),
        Flagged(
            """
            import torch
            def hessian_step(loss, params):
                torch.autograd.backward(loss, create_graph=True)  # TLK302
                return [p.grad for p in params]
            """,
            "torch.autograd.backward behaves the same",
        ),
        Flagged(
            """
            for x, y in loader:
                x = x.clone().requires_grad_(True)
                optimizer.zero_grad(set_to_none=True)
                loss = criterion(model(x), y)
                loss.backward(create_graph=True)  # TLK302
                (x.grad.pow(2).sum() * 0.1).backward()
                optimizer.step()
            """,
            "double backpropagation on an input: zero_grad() resets the parameters, not x.grad",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward(create_graph=True)
                penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
                penalty.backward()
                optimizer.step()
                optimizer.zero_grad()
            """,
            "the gradients are reset (to None, the default) after their last use",
        ),
        Clean(
            """
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward(create_graph=False)
                optimizer.step()
            """,
            "create_graph=False is the default behaviour",
        ),
    )
    demo: ClassVar[LeakDemo | None] = LeakDemo(
        setup="""
            model = nn.Sequential(
                nn.Linear(32, 128), nn.ReLU(),
                nn.Linear(128, 128), nn.ReLU(),
                nn.Linear(128, 128), nn.ReLU(),
                nn.Linear(128, 128), nn.ReLU(),
                nn.Linear(128, 1),
            ).to(device)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            loader = [
                (torch.randn(1024, 32, device=device), torch.randn(1024, 1, device=device))
                for _ in range(4)
            ]
        """,
        leaky="""
            inputs, targets = batch
            loss = F.mse_loss(model(inputs), targets)
            loss.backward(create_graph=True)
            optimizer.step()
        """,
        fixed="""
            inputs, targets = batch
            loss = F.mse_loss(model(inputs), targets)
            loss.backward(create_graph=True)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        """,
        meter="tensor",
        expectation=(
            "holds 3,678,212 B more tensor memory every iteration: each step's graph, chained "
            "through .grad"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        grads_set_to_none: bool | None = None
        for function in facts.functions:
            for call in function.backwards:
                if call.create_graph is None or call.kind == "grad":
                    continue
                literal = type(call.create_graph.value) is cst.Name and call.create_graph.value.value == "True"
                if call.create_graph_maybe:
                    # a switch only some paths set True: where the file sets a .grad to None anywhere
                    # (a callee the walk cannot reach, storch's update_parameters), trust it
                    if grads_set_to_none is None:
                        grads_set_to_none = _sets_a_grad_to_none(facts.module)
                    if grads_set_to_none:
                        continue
                resets = _resets_after(function, call)
                inputs = _unreset_inputs(function, call, resets)
                dropped = _dropped_with_grads(function, call, resets) if resets and not inputs else None
                if resets and not inputs and dropped is None:
                    continue
                if inputs:
                    name = sorted(inputs)[0]
                    fields = {"cycle": f"{name} and {name}.grad (zero_grad() resets only parameters)", "grads": f"{name}.grad"}
                elif dropped is not None:
                    fields = {
                        "cycle": f"the parameters of {dropped} and their .grad, left set by the last backward "
                        f"({dropped} is built in {function.name} and dropped at its end; zero_grad() runs only before each backward)",
                        "grads": f"{dropped}'s grads",
                    }
                else:
                    fields = {"cycle": "each parameter and its .grad", "grads": "the grads"}
                argument = code(call.create_graph).strip().rstrip(",").strip()
                fields["argument"] = argument
                # (a switch the file sets True somewhere: say so, the line alone does not)
                fields["when"] = "" if literal else ", True where this file sets it,"
                yield Report(call.create_graph, fields, call)

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        call = report.event
        if not isinstance(call, BackwardCall) or _unreset_inputs(call.function, call, _resets_after(call.function, call)):
            return None  # (an input's .grad: zero_grad() would not break its cycle)
        return zero_grad_fix(facts, call)


def _sets_a_grad_to_none(module: cst.Module) -> bool:
    """``p.grad = None`` somewhere in the file."""
    return any(
        type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == "None"
        and any(type(target.target) is cst.Attribute and target.target.attr.value == "grad" for target in node.targets)
        for node in subtree(module)
    )


def _resets_after(function: Function, call: BackwardCall) -> list[GradReset]:
    """The grad resets later in the step, or at the top of the next iteration of the loop
    around the backward (either breaks the parameter/.grad cycle: measured 0 B/iteration)."""
    return [reset for reset in function.grad_resets if reset.seq > call.seq or (call.loop is not None and call.loop.contains(reset.seq))]


def _unreset_inputs(function: Function, call: BackwardCall, resets: list[GradReset]) -> set[str]:
    """Locals made to require grad in ``function`` (``x = x.clone().requires_grad_()``) that
    what ``call`` differentiates is computed from, and whose ``.grad`` none of ``resets`` sets
    to None: ``zero_grad()`` resets parameters, not an input whose ``.grad`` closes the same
    cycle (double backpropagation)."""
    sources = function.sources_of(set(call.output_mentions))
    reset = {each.tensor for each in resets}
    by_key = bindings_by_key(function.bindings)
    # (what the name holds at the backward: ``y.requires_grad_()`` for a penalty, then
    # ``y = y.detach()`` before the generator's backward, is no leaf there)
    return {
        key for key in sources
        if "." not in key and key not in reset and (held := reaching_binding(by_key, key, call.seq)) is not None and held.value.leaf
    }


def _dropped_with_grads(function: Function, call: BackwardCall, resets: list[GradReset]) -> str | None:
    """A module built in ``function`` (``inner_net = copy.deepcopy(self.meta_net)``, ``Model()``)
    whose forward the backward differentiates, when every reset runs before the backward (at the
    top of each step) and the module never leaves the function: its last gradients keep their
    cycle, and the module is dropped with it at every call (measured: one network per call)."""
    if any(reset.seq > call.seq for reset in resets):
        return None
    by_key = bindings_by_key(function.bindings)
    sources = function.sources_of(set(call.output_mentions))
    for key in sorted(sources):
        held = reaching_binding(by_key, key, call.seq)
        if "." in key or held is None or held.value.kind is not Kind.MODULE or not _built_here(held):
            continue
        if not _leaves_function(function, key):
            return key
    return None


def _built_here(binding: Binding) -> bool:
    """The binding makes a new module: a copy of one, or a class's constructor (not a helper's
    result, which may hand back a model that lives on)."""
    assign = single_assign(binding.node)
    value = assign.value if assign is not None else None
    if type(value) is not cst.Call:
        return False
    callee = dotted(value.func) or ""
    return callee.rsplit(".", 1)[-1] == "deepcopy" or binding.value.cls is not None or callee.startswith(("nn.", "torch.nn."))


def _leaves_function(function: Function, key: str) -> bool:
    """``key`` is returned (not only a number computed from it), stored anywhere but a plain
    local, or handed to a call as itself. (Not ``escape.uses``: what is computed from the module,
    its parameters handed to an optimizer or its query gradients returned, may leave; the module
    and the ``.grad`` it holds do not.)"""
    for node in subtree(function.node):
        if type(node) is cst.Return and node.value is not None and key in mentions(node.value, through_detach=False):
            return True
        if type(node) is cst.Assign and key in mentions(node.value) and any(type(t.target) is not cst.Name for t in node.targets):
            return True
        if type(node) is cst.Call and any(type(arg.value) is cst.Name and arg.value.value == key for arg in node.args):
            return True
    return False


def _is_optimizer(facts: FileFacts, node: cst.BaseExpression) -> bool:
    """An optimizer by its value (``torch.optim.SGD(...)``); by its name only where the file
    says nothing of it (``scheduler.step()`` must not get a ``zero_grad``, which it lacks)."""
    value = facts.values.get(id(node))
    if value is not None and value.kind is Kind.OPTIMIZER:
        return value.cls != "GradScaler"
    owner = last_identifier(node)
    return (value is None or value.kind is Kind.UNKNOWN) and owner is not None and bool(vocab.OPTIMIZER_NAME.match(owner))


def zero_grad_fix(facts: FileFacts, call: BackwardCall) -> Fix | None:
    """``optimizer.zero_grad(set_to_none=True)`` after the step that follows the backward."""
    loop = call.loop
    if loop is None or not isinstance(loop.node, (cst.For, cst.While)) or not isinstance(loop.node.body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return None
    body = loop.node.body.body
    passed = False
    for statement in iter_statements(body):
        if statement is call.statement:
            passed = True
            continue
        if not passed or not isinstance(statement, cst.Expr) or not isinstance(statement.value, cst.Call):
            continue
        func = statement.value.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "step" or statement.value.args:
            continue
        if not _is_optimizer(facts, func.value):
            continue
        line = cst.parse_statement(f"{code(func.value)}.zero_grad(set_to_none=True)\n")
        assert isinstance(line, cst.SimpleStatementLine)
        return Fix(
            "unsafe",
            f"insert '{code(line.body[0])}' after '{code(statement)}'",
            (Edit(line_holding(body, statement), after=(line.body[0],)),),
            reason="code that reads .grad after the step, or accumulates gradients across iterations on purpose, "
            "behaves differently",
        )
    return None
