"""TLK301: a result of ``autograd.grad(create_graph=True)`` kept, or never differentiated again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.facts import Accumulation, BackwardCall, Binding, FileFacts, Loop, Store
from torchleak.analysis.queries import (
    carried_state,
    keeps_several,
    papered_by_a_retain,
    sums_into_itself,
    differentiated_again,
    graph_reused,
    held_across_iterations,
    later_backward,
    other_backward_in_loop,
    statement_text,
)
from torchleak.edits import detach_fix, keyword_edit
from torchleak.rule import Clean, Edit, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class CreateGraphKept(Rule):
    """## What it does
    Flags results of `torch.autograd.grad(..., create_graph=True)` that are kept across
    iterations (appended, accumulated) while still attached, and calls whose result never
    feeds another backward, a return value or an attribute.

    ## Why is this bad?
    `create_graph=True` records the backward pass itself as a graph, so that the gradients
    can be differentiated again (gradient penalties, MAML, Hessian-vector products). Each
    gradient it returns references that double-backward graph, which is about as large as
    the forward graph. Kept across iterations, one such graph stays alive per step; never
    differentiated, it was built for nothing and lives as long as the gradient does.

    ## Known problems
    A result handed to a function call for its side effect is assumed to be used.
    """

    code: ClassVar[str] = "TLK301"
    name: ClassVar[str] = "create-graph-kept"
    message: ClassVar[str] = "{problem}; {fix}"
    fix_safety: ClassVar[FixSafety] = "safe"
    fix_rationale: ClassVar[str] = (
        "A result kept across iterations is stored (or accumulated) as `.detach()` of itself, on the "
        "same evidence TLK102's fix needs to be safe. A result never differentiated again loses "
        "`create_graph=True`: safe, as nothing differentiates it; where another backward still needs "
        "the forward graph, `create_graph=True` becomes `retain_graph=True`, which it implied."
    )
    fixed_example: ClassVar[str] = """
        import torch
        grad_norms = []
        for x, y in loader:
            loss = criterion(model(x), y)
            grads = torch.autograd.grad(loss, model.parameters(), create_graph=True)
            penalty = sum(g.pow(2).sum() for g in grads)
            (loss + 0.1 * penalty).backward()
            optimizer.step()
            grad_norms.append(penalty.detach())
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            import torch
            grad_norms = []
            for x, y in loader:
                loss = criterion(model(x), y)
                grads = torch.autograd.grad(loss, model.parameters(), create_graph=True)
                penalty = sum(g.pow(2).sum() for g in grads)
                (loss + 0.1 * penalty).backward()
                optimizer.step()
                grad_norms.append(penalty)  # TLK301
            """,
            "a gradient penalty logged without detach keeps its double-backward graph",
        ),
        Flagged(
            """
            from torch import autograd
            for x in loader:
                x.requires_grad_(True)
                energy = model(x).sum()
                forces = autograd.grad(energy, x, create_graph=True)[0]  # TLK301
                print(forces.norm())
            """,
            "create_graph=True whose result is never differentiated again",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            import torch
            for real, fake in loader:
                alpha = torch.rand(real.size(0), 1)
                interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
                grads = torch.autograd.grad(critic(interp).sum(), interp, create_graph=True)[0]
                gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
                loss = critic(fake).mean() - critic(real).mean() + 10 * gp
                loss.backward()
                optimizer.step()
            """,
            "WGAN-GP: the penalty feeds the loss that is backwarded",
        ),
        Clean(
            """
            import torch
            from torch.func import functional_call
            for task in tasks:
                params = dict(model.named_parameters())
                inner = criterion(functional_call(model, params, task.x), task.y)
                grads = torch.autograd.grad(inner, params.values(), create_graph=True)
                fast = {n: p - 0.01 * g for (n, p), g in zip(params.items(), grads)}
                outer = criterion(functional_call(model, fast, task.qx), task.qy)
                outer.backward()
            meta_optimizer.step()
            """,
            "MAML: the adapted weights feed the outer loss",
        ),
        Clean(
            """
            import torch
            def gradient_penalty(critic, interp):
                grads = torch.autograd.grad(critic(interp).sum(), interp, create_graph=True)[0]
                return ((grads.norm(2, dim=1) - 1) ** 2).mean()
            """,
            "returned to the caller, which adds it to the loss",
        ),
        Clean(
            """
            import torch
            for x in loader:
                x.requires_grad_(True)
                y = model(x).sum()
                g = torch.autograd.grad(y, x, create_graph=True)[0]
                hvp = torch.autograd.grad(g, x, grad_outputs=v)[0]
                history.append(hvp)
            """,
            "the first gradient is differentiated again; the second has no graph",
        ),
    )
    demo: ClassVar[LeakDemo | None] = LeakDemo(
        setup="""
            model = nn.Sequential(nn.Linear(2, 1024), nn.Tanh(), nn.Linear(1024, 1)).to(device)
            loader = [torch.randn(64, 2, device=device) for _ in range(4)]
            saliency = []
        """,
        leaky="""
            inputs = batch.requires_grad_()
            score = model(inputs).sum()
            (grad,) = torch.autograd.grad(score, inputs, create_graph=True)
            saliency.append(grad)
        """,
        fixed="""
            inputs = batch.requires_grad_()
            score = model(inputs).sum()
            (grad,) = torch.autograd.grad(score, inputs, create_graph=True)
            saliency.append(grad.detach())
        """,
        meter="tensor",
        expectation=(
            "holds 786,948 B more tensor memory every iteration: the double-backward graph behind "
            "each kept gradient"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        for event, loop in held_across_iterations(facts, double_backward=True):
            value = statement_text(facts, event.value_node, limit=40)
            yield Report(
                event.node,
                {
                    "problem": f"'{statement_text(facts, event.node)}' keeps the double-backward graph of "
                    f"autograd.grad(create_graph=True) alive across iterations{f' ({event.via})' if event.via else ''}",
                    "fix": f"keep .detach() (or .item()) of each tensor in {value}" if keeps_several(facts, event) else f"keep {value}.detach() (or .item())",
                },
                event,
                loop,
            )
        papered = papered_by_a_retain(facts)
        for loop, binding in carried_state(facts):
            if binding.value.double_backward and sums_into_itself(binding) and not papered(binding) and not _dies_with_the_call(facts, loop, binding):
                where = f" (in {binding.in_callee})" if binding.in_callee else ""
                yield Report(
                    binding.node,
                    {
                        "problem": f"'{statement_text(facts, binding.node)}' carries the double-backward graph of "
                        f"autograd.grad(create_graph=True) into the next iteration{where}, so every iteration's graph stays alive",
                        "fix": f"update {binding.key.rsplit('.', 1)[-1]} from detached values (or .item())",
                    },
                    binding,
                    loop,
                )
        for function in facts.functions:
            for call in function.double_backward_grads:
                if not differentiated_again(call, facts):
                    yield Report(
                        call.node,
                        {
                            "problem": "the result of autograd.grad(create_graph=True) never feeds another "
                            "backward, so its double-backward graph is built for nothing and lives as long as it does",
                            "fix": "drop create_graph=True (or .detach() the result)",
                        },
                        call,
                    )

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        event = report.event
        if isinstance(event, (Store, Accumulation)):
            return detach_fix(facts, event)
        if isinstance(event, BackwardCall) and event.create_graph is not None and isinstance(event.node, cst.Call):
            return _drop_create_graph(facts, event, event.node, event.create_graph)
        return None


def _drop_create_graph(facts: FileFacts, call: BackwardCall, node: cst.Call, create_graph: cst.Arg) -> Fix:
    """Remove ``create_graph=True``, or rename it ``retain_graph=True`` where the graph is reused."""
    needed = later_backward(call.function, call.seq) or (
        call.loop is not None
        and (other_backward_in_loop(call.function, call.seq, call.loop) or graph_reused(call, call.loop, facts))
    )
    if needed and not any(arg.keyword is not None and arg.keyword.value == "retain_graph" for arg in node.args):
        renamed = [arg.with_changes(keyword=cst.Name("retain_graph")) if arg is create_graph else arg for arg in node.args]
        return Fix(
            "safe",
            "replace 'create_graph=True' with 'retain_graph=True'",
            (Edit(node, node.with_changes(args=renamed)),),
            reason="nothing differentiates the result again; another backward still needs the forward graph",
        )
    return Fix(
        "safe",
        "remove 'create_graph=True'",
        (keyword_edit(node, create_graph),),
        reason="nothing differentiates the result again, and no other backward needs the graph",
    )


def _dies_with_the_call(facts: FileFacts, loop: Loop, binding: Binding) -> bool:
    """A local (or parameter) chained by a loop of a helper that the file calls (the terms of a
    Neumann series, ``v = [vi - lr * hi for vi, hi in zip(v, hvp)]``; an unrolled inner loop):
    the chain is one call long, what the call returns is its caller's to differentiate."""
    function = binding.function
    if "." in binding.key or "[" in binding.key or loop.over_loader or loop.per_batch_method or binding.in_callee:
        return False
    evidence = facts.evidence
    return evidence is not None and function.name != "<module>" and any(callee == function.name for callee, _ in evidence.call_nodes)
