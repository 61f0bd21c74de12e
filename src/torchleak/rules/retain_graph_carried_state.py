"""TLK202: ``retain_graph=True`` silencing the error of a state carried without ``.detach()``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.facts import BackwardCall, Binding, FileFacts, Kind, Loop
from torchleak.analysis.queries import (
    carried_state, detach_statement, folded_operand, history_keeping_reset, item_fix, later_backward, retained_over_carried_state,
    statement_text, updates_a_slot,
)
from torchleak.edits import keyword_edit, state_fix_edit
from torchleak.rule import Clean, Edit, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class RetainGraphCarriedState(Rule):
    """## What it does
    Flags `retain_graph=True` on a backward inside a loop over batches that carries a
    graph-attached state into the next iteration without detaching it (the pattern of TLK103).

    ## Why is this bad?
    Carrying an RNN's hidden state across batches without `.detach()` makes the second
    `backward()` fail with "Trying to backward through the graph a second time ... specify
    retain_graph=True". Following that advice makes the error go away and the real problem
    worse: every backward now walks, and keeps, the graphs of all previous iterations, so both
    memory and step time grow every iteration until the run dies. The fix is to detach the
    state (`h = h.detach()`) and drop `retain_graph=True`.

    With an `optimizer.step()` in the loop, the run fails instead of growing: the step updates
    in place the weights the retained graphs saved, so the second iteration's backward raises
    "one of the variables needed for gradient computation has been modified by an inplace
    operation". The same fix cures both.

    ## Known problems
    State detached through a helper defined in another module counts as detached.
    """

    code: ClassVar[str] = "TLK202"
    name: ClassVar[str] = "retain-graph-carried-state"
    message: ClassVar[str] = (
        "'retain_graph=True' papers over '{key}' carried across iterations without .detach(): "
        "{harm}; {detach} and drop retain_graph=True"
    )
    fix_safety: ClassVar[FixSafety] = "unsafe"
    fix_rationale: ClassVar[str] = (
        "Detaches every state the loop carries at the top of the iteration (as TLK103's fix does) and "
        "removes `retain_graph=True` when no later backward needs the graph. Always unsafe: the original "
        "backpropagates into every earlier iteration, so the fix changes the gradients (to truncated "
        "backpropagation through time, almost always what was meant) as well as the memory."
    )
    fixed_example: ClassVar[str] = """
        h = torch.zeros(1, 32, 128)
        for inputs, targets in loader:
            h = h.detach()
            out, h = rnn(inputs, h)
            loss = F.mse_loss(head(out[:, -1]), targets)
            loss.backward()
        optimizer.step()
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            import torch
            import torch.nn.functional as F
            h = torch.zeros(1, 32, 128)
            for inputs, targets in loader:
                out, h = rnn(inputs, h)
                loss = F.mse_loss(head(out[:, -1]), targets)
                loss.backward(retain_graph=True)  # TLK202
            optimizer.step()
            """,
            "the classic: a GRU's hidden state carried over a stream, and retain_graph=True to silence "
            "the error; gradients accumulate and the optimizer steps after the stream (the measured demo below)",
        ),
        Flagged(
            """
            import torch
            h = torch.zeros(1, 32, 64)
            for x, y in loader:
                out, h = gru(x, h)
                loss = criterion(out, y)
                loss.backward(retain_graph=True)  # TLK202
                optimizer.step()
            """,
            "with optimizer.step() in the loop the second iteration's backward raises instead: the step "
            "modified in place the weights the retained graph saved",
        ),
        Flagged(
            """
            for x, y in loader:
                out, hidden = model(x, hidden)
                loss = criterion(out, y)
                optimizer.zero_grad()
                loss.backward(retain_graph=True)  # TLK202
                optimizer.step()
            """,
            "the state comes from before the loop",
        ),
        Flagged(
            """
            import torch
            import torch.nn as nn

            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(16, 16)
                    self.context = None

                def forward(self, x):
                    h = self.lin(x)
                    if self.context is None:
                        self.context = h.mean(0)
                    else:
                        self.context = 0.5 * self.context + 0.5 * h.mean(0)
                    return h + self.context

            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

                def step(self, x):
                    loss = self.model(x).pow(2).mean()
                    loss.backward(retain_graph=True)  # TLK202
                    self.optimizer.step()
                    self.optimizer.zero_grad()

                def fit(self, loader):
                    for x in loader:
                        self.step(x)

            Trainer(Encoder()).fit(loader)
            """,
            "a per-batch helper's backward, and a module of the file that carries a context vector in its "
            "forward (the trainer does not name the model's class)",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            import torch
            h = torch.zeros(1, 32, 64)
            for x, y in loader:
                h = h.detach()
                out, h = gru(x, h)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
            """,
            "the state is detached each iteration and no graph is retained",
        ),
        Clean(
            """
            for x, y in loader:
                hidden = model.init_hidden(x.size(0))
                out, hidden = model(x, hidden)
                loss1 = criterion(out, y)
                loss1.backward(retain_graph=True)
                out.pow(2).mean().backward()
            """,
            "a fresh state per batch and a legitimate second backward",
        ),
    )
    demo: ClassVar[LeakDemo | None] = LeakDemo(
        setup="""
            rnn = nn.GRU(32, 128, batch_first=True).to(device)
            head = nn.Linear(128, 1).to(device)
            # A stream: one time step per batch, the hidden state carried from batch to batch.
            loader = [
                (torch.randn(32, 1, 32, device=device), torch.randn(32, 1, device=device))
                for _ in range(4)
            ]
            h = torch.zeros(1, 32, 128, device=device)
            # Gradients accumulate over the stream and the optimizer steps between epochs: an
            # in-place optimizer.step() here makes the retained graph raise instead.
        """,
        leaky="""
            inputs, targets = batch
            out, h = rnn(inputs, h)
            loss = F.mse_loss(head(out[:, -1]), targets)
            loss.backward(retain_graph=True)
        """,
        fixed="""
            inputs, targets = batch
            h = h.detach()
            out, h = rnn(inputs, h)
            loss = F.mse_loss(head(out[:, -1]), targets)
            loss.backward()
        """,
        meter="tensor",
        expectation=(
            "holds 114,688 B more tensor memory every iteration, and every backward walks all the "
            "graphs before it, so the step time grows too"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        carried_pairs = list(carried_state(facts))
        for call, binding in retained_over_carried_state(facts, carried_pairs):
            if call.retain_graph is None:
                continue  # (never: the query yields retaining calls only)
            steps = any(loop.has_optimizer_step for loop in call.loop.enclosing()) if call.loop is not None else False
            # (a running sum of losses saves what its terms saved, often no weight: it only grows)
            summed = any(event.node is binding.node for event in binding.function.accumulations)
            harm = (
                "optimizer.step() then modifies in place the weights the retained graph saved, so the next "
                "iteration's backward raises"
                if steps and not summed
                else "the graph and the step time grow every iteration"
            )
            key = binding.key
            reset = next((history_keeping_reset(facts, loop, key) for loop, other in carried_pairs if other is binding), None)
            reset_in = reset.function.name if reset is not None else ""
            if reset is not None:
                # zeroed in place by a reset method: autograd skips the zero gradient, so
                # nothing raises, and the chain of graphs grows
                harm = "the graph and the step time grow every iteration"
                detach = (
                    f"reset it without its history in {reset.function.name} "
                    f"({reset.key} = torch.zeros_like({reset.key}), not {reset.key}.zero_())"
                )
            elif updates_a_slot(binding):
                # (a dict or a tensor of slots, ``self._protos[c] = m * self._protos[c] + ...``: a
                # slot no batch updates keeps its old graph whatever the previous value of the
                # updated ones is, so what is averaged in must carry none)
                operand = folded_operand(facts, binding.node)
                inside = f" in {binding.in_callee}" if binding.in_callee else ""
                if operand is not None:
                    detach = f"average {item_fix(facts, operand)}.detach() into its slots{inside} (a slot this step does not update keeps its graph)"
                else:  # (a write-back, ``data[idx] = f(data[idx], x_adv)``: no average to name)
                    detach = f"write detached values into its slots{inside} (a slot this step does not update keeps its graph)"
            elif binding.in_callee:
                own = "self." + key.rsplit(".", 1)[-1]
                statement = detach_statement(binding, own) or f"{own} = {own}.detach()"
                detach = f"detach it each iteration ({statement} in {binding.in_callee}, before it is updated)"
            elif binding.function is not call.function:
                statement = detach_statement(binding, key) or f"{key} = {key}.detach()"
                detach = f"detach it each iteration ({statement} at the start of {binding.function.name}, before it is updated)"
            elif (detaching := detach_statement(binding, key)) is not None:
                detach = f"detach it each iteration ({detaching})"
            elif binding.via:
                detach = f"detach what is stored into it each iteration ({binding.via})"
            elif _one_tensor(binding):
                detach = f"detach it each iteration ({key} = {key}.detach())"
            else:
                detach = "detach it each iteration (each tensor it holds, at the start of the iteration)"
            fields = {"key": key, "call": statement_text(facts, call.node), "harm": harm, "detach": detach, "reset_in": reset_in}
            yield Report(call.retain_graph, fields, call)

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        if not isinstance(report.event, BackwardCall) or report.fields.get("reset_in"):
            return None  # (the fix is in the reset method, which the edit does not reach)
        return retain_carried_fix(facts, report.event, list(carried_state(facts)))


def _one_tensor(binding: Binding) -> bool:
    """The state may be one tensor (``state.detach()`` applies): not a tuple or container."""
    value = binding.value
    return value.elements is None and value.kind not in (Kind.TUPLE, Kind.CONTAINER, Kind.INSTANCE)


def retain_carried_fix(facts: FileFacts, call: BackwardCall, carried: list[tuple[Loop, Binding]]) -> Fix | None:
    """Detach the states the loop around ``call`` carries and drop ``retain_graph=True``."""
    if call.loop is None or call.retain_graph is None or not isinstance(call.node, cst.Call):
        return None
    enclosing = list(call.loop.enclosing())
    loop = next((candidate for candidate, _ in carried if candidate in enclosing), None)
    if loop is None:
        return None
    edits: list[Edit] = []
    texts: list[str] = []
    for candidate, binding in carried:
        if candidate is loop:
            made = state_fix_edit(facts, binding.function, loop, binding.key)
            if made is None:
                return None
            edits.append(made[0])
            texts.append(made[2])
    description = " and ".join(f"insert '{text}' at the top of the iteration" for text in texts)
    if not later_backward(call.function, call.seq):
        edits.append(keyword_edit(call.node, call.retain_graph))
        description += " and remove 'retain_graph=True'"
    return Fix(
        "unsafe",
        description,
        tuple(edits),
        reason="the original backpropagates into every earlier iteration: detaching changes the gradients "
        "(to truncated backpropagation through time) as well as the memory",
    )
