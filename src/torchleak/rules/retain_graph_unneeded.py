"""TLK201: ``retain_graph=True`` on the last backward through a graph built in the iteration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.facts import BackwardCall, FileFacts
from torchleak.analysis.names import dotted
from torchleak.analysis.queries import differentiates_what_it_keeps, retained_for_a_guarded_backward, graph_reused, last_of_losses_retains, later_backward, carried_into, helper_graph_reused, loops_with_carried_state, per_batch_calls, statement_text, stored_into_the_backwarded, unstepped_pre_loop_graph
from torchleak.edits import keyword_edit
from torchleak.rule import Clean, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class RetainGraphUnneeded(Rule):
    """## What it does
    Flags `loss.backward(retain_graph=True)` (or `torch.autograd.grad(..., retain_graph=True)`)
    inside a loop when no later backward in the same iteration goes through that graph.

    ## Why is this bad?
    `retain_graph=True` keeps the saved tensors of the graph after the backward pass, so that a
    second backward can use them. When none follows, they stay alive until `loss` is replaced
    in the next iteration: the next forward pass runs with the previous graph still in memory,
    raising the peak by one whole graph. It does not grow from step to step, so this is a
    **peak**, not a leak; but it is often what pushes a run that fits over the edge, and it is
    the usual symptom of the TLK202 mistake.

    ## Known problems
    A later backward or `autograd.grad` in the iteration counts as using the graph when what it
    differentiates is computed from a value the retained one is computed from too (a name
    rebound in between, `fake = gen(z)` for each of two steps, is two values); a call the
    analysis cannot follow counts as a use. A graph built before the loop (or handed in by a
    caller's forward), or one that a state carried
    between iterations links into (truncated BPTT), is assumed to be needed, unless the
    function builds its optimizers before the loop and none is given anything that graph was
    computed from (a style-transfer target computed with grad while only the image is
    optimized): then the retain only hides the error of differentiating the target's freed
    graph again, and the advice is to compute the target without a graph.
    """

    code: ClassVar[str] = "TLK201"
    name: ClassVar[str] = "retain-graph-unneeded"
    harm: ClassVar[str] = "peak"  # type: ignore[assignment]
    message: ClassVar[str] = (
        "'{keyword}' in '{call}': {reason}, so it stays alive {until} and raises the peak by one "
        "graph; {advice}"
    )
    fix_safety: ClassVar[FixSafety] = "safe"
    fix_rationale: ClassVar[str] = (
        "Removes `retain_graph=True`: `loss.backward(retain_graph=True)` becomes `loss.backward()` and "
        "`f(a, retain_graph=True)` becomes `f(a)`. The rule has established that no later backward in "
        "the iteration and no state carried into the next one goes through the graph; the fix is safe "
        "when no backward follows in the rest of the function either, unsafe otherwise (a backward after "
        "the loop could be meant to reuse the last iteration's graph)."
    )
    fixed_example: ClassVar[str] = """
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward(retain_graph=True)  # TLK201
                optimizer.step()
            """,
            "a single backward per iteration",
        ),
        Flagged(
            """
            for x, y in loader:
                out = model(x)
                loss1 = criterion(out, y)
                loss2 = out.pow(2).mean()
                loss1.backward(retain_graph=True)
                loss2.backward(retain_graph=True)  # TLK201
                optimizer.step()
            """,
            "the second of two backward passes needs no retained graph",
        ),
        Flagged(
            """
            class GAN:
                def backward_G(self):
                    self.loss_G = criterion(self.net_D(self.fake), self.real_label)
                    self.loss_G.backward(retain_graph=True)  # TLK201

                def backward_D(self):
                    self.loss_D = criterion(self.net_D(self.fake.detach()), self.fake_label)
                    self.loss_D.backward()

                def optimize(self, x):
                    self.fake = self.net_G(x)
                    self.backward_G()
                    self.backward_D()

            gan = GAN()
            for x, _ in loader:
                gan.optimize(x)
            """,
            "a helper called once per batch whose later backward (on detached fakes) does not reuse the graph",
        ),
        Flagged(
            """
            for x, y in loader:
                out = model(x)
                losses = [criterion(out, y), 0.1 * out.pow(2).mean()]
                optimizer.zero_grad()
                for loss in losses:
                    scaler.scale(loss).backward(retain_graph=True)  # TLK201
                scaler.step(optimizer)
                scaler.update()
            """,
            "a loop over losses sharing one graph: every loss but the last needs it, the last retains it for nothing",
        ),
        Flagged(
            """
            style_target = features(style)
            optimizer = torch.optim.Adam([image], lr=0.01)
            for _ in range(steps):
                loss = F.mse_loss(features(image), style_target)
                optimizer.zero_grad()
                loss.backward(retain_graph=True)  # TLK201
                optimizer.step()
            """,
            "retained only because a target built before the loop is differentiated again; the optimizer steps only the image",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            for x, y in loader:
                out = model(x)
                loss1 = criterion(out, y)
                loss2 = out.pow(2).mean()
                loss1.backward(retain_graph=True)
                loss2.backward()
                optimizer.step()
            """,
            "a legitimate second backward through the shared graph",
        ),
        Clean(
            """
            loss = criterion(model(x), y)
            for _ in range(3):
                loss.backward(retain_graph=True)
            """,
            "the graph is built once before the loop and reused by every iteration",
        ),
        Clean(
            """
            for x, y in loader:
                features = encoder(x)
                for head in heads:
                    head_loss = criterion(head(features), y)
                    head_loss.backward(retain_graph=True)
                optimizer.step()
            """,
            "every head's backward goes through the encoder graph built before the inner loop",
        ),
        Clean(
            """
            for x, y in loader:
                out = model(x)
                losses = [criterion(out, y), 0.1 * out.pow(2).mean()]
                optimizer.zero_grad()
                for i, loss in enumerate(losses):
                    loss.backward(retain_graph=i < len(losses) - 1)
                optimizer.step()
            """,
            "the graph is retained only while another loss follows",
        ),
        Clean(
            """
            import torch
            for real in loader:
                interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
                d_interp = critic(interp)
                grads = torch.autograd.grad(d_interp.sum(), interp, create_graph=True, retain_graph=True)[0]
                gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
                d_loss = critic(fake).mean() - critic(real).mean() + 10 * gp
                d_loss.backward()
                optimizer.step()
            """,
            "WGAN-GP: the gradient penalty's graph is backwarded by d_loss",
        ),
        Clean(
            """
            features = encoder(x)
            optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()])
            for _ in range(steps):
                loss = criterion(head(features), y)
                optimizer.zero_grad()
                loss.backward(retain_graph=True)
                optimizer.step()
            """,
            "the graph built before the loop leads to parameters the optimizer steps: every backward needs it",
        ),
        Clean(
            """
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)
            """,
            "outside a loop the graph dies with the function: no step runs with it alive",
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
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward(retain_graph=True)
            optimizer.step()
        """,
        fixed="""
            inputs, targets = batch
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        """,
        meter="peak",
        expectation=(
            "raises the peak by 1,576,440 B (984,576 B on CUDA, H100): the previous "
            "iteration's retained graph is alive during the next forward; it does not grow"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        carried = loops_with_carried_state(facts)
        for function in facts.functions:
            for call in function.backwards:
                if call.retain_graph is None or call.create_graph is not None or call.create_graph_maybe:
                    continue  # (create_graph=True retains the graph whatever retain_graph says)
                if _deleted_after(call):
                    continue  # ``del output`` right after: the retained graph is freed there
                if retained_for_a_guarded_backward(call):
                    continue  # ``retain_graph=flag`` for the backward that ``if flag:`` runs next
                if differentiates_what_it_keeps(call, facts):
                    continue  # (the next backward may reach this graph through what was kept)
                if call.loop is None:
                    if carried_into(call, carried, facts) is not None:
                        continue  # TLK202 reports retain_graph=True hiding a state a forward carries
                    # A helper called once per batch (``backward_G()`` from ``optimize_parameters``)
                    sites = per_batch_calls(facts, function)
                    if sites and not helper_graph_reused(facts, call, sites):
                        yield Report(call.retain_graph, _fields(facts, call), call)
                    continue
                if carried_into(call, carried) is not None or stored_into_the_backwarded(call, facts) is not None:
                    continue  # TLK202 reports retain_graph=True hiding a carried state
                if graph_reused(call, call.loop, facts):
                    if last_of_losses_retains(facts, call):
                        yield Report(call.retain_graph, _fields(facts, call, losses_loop=True), call)
                        continue
                    unstepped = unstepped_pre_loop_graph(call, call.loop)
                    if unstepped and not graph_reused(call, call.loop, facts, ignored=unstepped):
                        yield Report(call.retain_graph, _fields(facts, call, built_before=unstepped), call)
                    continue
                yield Report(call.retain_graph, _fields(facts, call), call)

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        call = report.event
        if not isinstance(call, BackwardCall) or call.retain_graph is None or not isinstance(call.node, cst.Call):
            return None
        if report.fields.get("until") == _UNTIL_RELEASED:
            return None  # every loss but the last needs the graph: the edit is the user's choice
        if call.loop is not None and unstepped_pre_loop_graph(call, call.loop):
            return None  # retained for a graph built before the loop: removed alone, the next backward would fail on it
        later = later_backward(call.function, call.seq)
        return Fix(
            "unsafe" if later else "safe",
            f"remove '{_keyword_text(facts, call.retain_graph)}'",
            (keyword_edit(call.node, call.retain_graph),),
            reason="a backward follows later in the function" if later else "no backward follows it",
        )


_UNTIL_RELEASED = "until the losses are released"
_UNTIL_NEXT_ITERATION = "into the next iteration"


def _fields(
    facts: FileFacts, call: BackwardCall, *, losses_loop: bool = False, built_before: frozenset[str] = frozenset()
) -> dict[str, str]:
    keyword = _keyword_text(facts, call.retain_graph) if call.retain_graph is not None else "retain_graph=True"
    fields = {"keyword": keyword, "call": statement_text(facts, call.node, limit=60)}
    if built_before:
        names = ", ".join(sorted(built_before))
        return {
            **fields,
            "reason": f"the only graph a later backward goes through again is that of {names}, built before the loop, "
            "and no optimizer here steps anything it was computed from",
            "until": _UNTIL_NEXT_ITERATION,
            "advice": f"compute {names} under torch.no_grad() (or .detach() {'them' if len(built_before) > 1 else 'it'}) and remove {keyword}",
        }
    if losses_loop:
        return {
            **fields,
            "reason": "the last loss of this loop retains the graph too, and no backward after the loop uses it",
            "until": _UNTIL_RELEASED,
            "advice": "retain it only while another loss follows (for i, loss in enumerate(losses): ... "
            "retain_graph=i < len(losses) - 1), or backward the losses' sum once",
        }
    return {
        **fields,
        "reason": "no later backward in this iteration uses the graph",
        "until": _UNTIL_NEXT_ITERATION,
        "advice": f"remove {keyword}",
    }


def _keyword_text(facts: FileFacts, argument: cst.Arg) -> str:
    """``retain_graph=True``, or ``retain_graph=USE_MEMORY`` where a switch the file sets is given."""
    return f"retain_graph={statement_text(facts, argument.value, limit=30)}"


def _deleted_after(call: BackwardCall) -> bool:
    """Every differentiated output is ``del``-eted later in the same iteration (reformer's
    reversible layers free what they retained before the next block runs)."""
    roots = {key.split(".", 1)[0] for key in call.output_mentions} - {"torch", "autograd"}
    deleted = {
        binding.key
        for binding in call.function.bindings
        if isinstance(binding.node, cst.Del) and binding.seq > call.seq and (call.loop is None or call.loop.contains(binding.seq))
    }
    # ``out.backward(grad, retain_graph=True)`` then ``del out``: the retained graph hangs from
    # ``out``, whatever the analysis made of the gradient passed beside it
    node = call.node
    receiver = dotted(node.func.value) if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward" else None
    return (bool(roots) and roots <= deleted) or (receiver is not None and receiver in deleted)
