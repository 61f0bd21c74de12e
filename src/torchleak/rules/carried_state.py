"""TLK103: a tensor carried into the next iteration's forward pass without ``.detach()``."""

from __future__ import annotations

import re

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.facts import Binding, FileFacts, Loop
from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.flow import mentions, single_assign
from torchleak.analysis.names import last_identifier
from torchleak.analysis.queries import (
    averaged_operand, bounded_by_each_call, carried_where_fixed, detach_statement, folded_operand, history_keeping_reset, item_fix, papered_by_a_retain,
    statement_text, sums_into_itself, uncalled_reset, written_by_slot,
)
from torchleak.edits import accumulation_fix, evidence, state_fix_edit
from torchleak.rule import Clean, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class CarriedState(Rule):
    """## What it does
    Flags a recurrent state, such as an RNN's hidden state, that a loop over batches feeds from
    one iteration into the next forward pass (`out, h = model(x, h)`) without detaching it.

    ## Why is this bad?
    The new `h` is attached to this iteration's graph, which links back to the previous `h`
    and its graph, and so on to the first batch. The first `backward()` frees the saved tensors
    of the old graphs, so the second raises "Trying to backward through the graph a second
    time". Without `backward()` in the loop (an evaluation loop without `torch.no_grad()`), or
    with `retain_graph=True`, the chain grows by one graph every iteration. When a
    `retain_graph=True` hides the error, TLK202 reports the state once, at that backward, and
    names where to detach it.
    Truncated backpropagation through time detaches the state at each boundary:
    `h = h.detach()`.

    ## Known problems
    A state passed through a helper from another module (`h = repackage(h)`) counts as
    replaced. Only loops over batches are checked; unrolling over time steps inside one
    iteration is the normal forward pass.
    """

    code: ClassVar[str] = "TLK103"
    name: ClassVar[str] = "carried-state"
    harm: ClassVar[str] = "error"  # type: ignore[assignment]
    message: ClassVar[str] = (
        "'{key}' is carried into the next iteration still attached to the autograd graph{where}, which "
        "chains every iteration's graph together ({consequence}); {fix}"
    )
    fix_safety: ClassVar[FixSafety] = "safe"
    fix_rationale: ClassVar[str] = (
        "Inserts `h = h.detach()` at the top of the loop body (of a per-batch method's body); "
        "`hidden = tuple(v.detach() for v in hidden)` when the state starts as a tuple such as an LSTM's "
        "`(h, c)`; `h = h.detach() if h is not None else None` when it starts as `None`. Safe when the "
        "state starts as a known tensor or tuple of tensors and either the loop calls backward (the "
        "original's second backward fails) or the function neither differentiates nor keeps anything; "
        "unsafe when the state's shape is a guess, or when a backward after the loop could be meant to "
        "go through every iteration (full backpropagation through time)."
    )
    fixed_example: ClassVar[str] = """
        h = torch.zeros(1, 32, 64)
        for x, y in loader:
            h = h.detach()
            out, h = model(x, h)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            import torch
            h = torch.zeros(1, 32, 64)
            for x, y in loader:
                out, h = model(x, h)  # TLK103
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
            """,
            "a GRU hidden state carried across training steps",
        ),
        Flagged(
            """
            hidden = (h0, c0)
            for x, y in loader:
                out, (h, c) = lstm(x, hidden)
                hidden = (h, c)  # TLK103
                criterion(out, y).backward()
            """,
            "an LSTM's (h, c) tuple",
        ),
        Flagged(
            """
            class LitTBPTT(LightningModule):
                def training_step(self, batch, batch_idx):
                    out, self.hidden = self.rnn(batch, self.hidden)  # TLK103
                    return out.pow(2).mean()
            """,
            "state kept in an attribute of a per-batch method",
        ),
        Flagged(
            """
            class StatefulLSTM(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(8, 8)
                    self.state = None

                def forward(self, x):
                    out, self.state = self.lstm(x, self.state)  # TLK103
                    return self.head(out)
            """,
            "a stateful module's forward: the state links every call's graph to the last",
        ),
        Flagged(
            """
            state = None
            for batch in val_loader:
                out, state = model(batch, state)  # TLK103
                predictions.append(out.argmax(-1))
            """,
            "an evaluation loop without no_grad: the chain grows every batch",
        ),
        Flagged(
            """
            import torch.nn as nn

            encoder = nn.Linear(32, 8)
            optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
            center = torch.zeros(8)
            for x in loader:
                feats = encoder(x)
                loss = (feats - center).pow(2).mean()
                loss.backward()
                optimizer.step()
                center = 0.9 * center + 0.1 * feats.mean(0)  # TLK103
            """,
            'a moving average of features (not a loss) carries the graph into the next iteration',
        ),
        Flagged(
            """
            import torch.nn as nn

            class RunningNorm(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.register_buffer("mean", torch.zeros(n))

                def forward(self, x):
                    self.mean = 0.9 * self.mean + 0.1 * x.mean(0)  # TLK103
                    return x - self.mean

            model = nn.Sequential(nn.Linear(8, 8), RunningNorm(8))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for x, y in loader:
                criterion(model(x), y).backward()
                optimizer.step()
            """,
            "a module inside nn.Sequential keeps a running statistic of its (attached) input: reported in its forward",
        ),
        Flagged(
            """
            def generate(model, ids, steps):
                out = model(ids, use_cache=True)
                past = out.past_key_values
                for _ in range(steps):
                    out = model(ids[:, -1:], past_key_values=past, use_cache=True)
                    past = out.past_key_values  # TLK103
                    ids = torch.cat([ids, out.logits[:, -1:].argmax(-1)], dim=1)
                return ids
            """,
            "a generation loop without no_grad feeds the key/value cache back in: nothing backwards it",
        ),
        Flagged(
            """
            import torch

            def pgd(model, x, y, steps=10, alpha=0.01):
                adv = x.clone().requires_grad_(True)
                for _ in range(steps):
                    loss = F.cross_entropy(model(adv), y)
                    grad, = torch.autograd.grad(loss, adv)
                    adv = adv + alpha * grad.sign()  # TLK103
                return adv
            """,
            "an adversarial example updated from itself: each step chains the previous one",
        ),
        Flagged(
            """
            def update_ema(model, ema, decay=0.999):
                for ema_p, p in zip(ema.parameters(), model.parameters()):
                    ema_p.mul_(decay).add_(p, alpha=1 - decay)  # TLK103

            for x, y in loader:
                criterion(model(x), y).backward()
                optimizer.step()
                update_ema(model, ema_model)
            """,
            "an EMA teacher updated in place from the student's parameters, outside torch.no_grad()",
        ),
        Flagged(
            """
            import torch.nn.functional as F
            ema = 0.0
            for x, y in loader:
                loss = F.mse_loss(net(x), y)
                loss.backward()
                optimizer.step()
                ema = 0.98 * ema + 0.02 * loss  # TLK103
            """,
            "a moving average of the loss for the progress bar: each value is computed from the last "
            "(a plain running total, total = total + loss, is TLK101)",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            h = torch.zeros(1, 32, 64)
            for x, y in loader:
                h = h.detach()
                out, h = model(x, h)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
            """,
            "truncated BPTT: the state is detached at every iteration",
        ),
        Clean(
            """
            for x, y in loader:
                out, h = model(x, h)
                criterion(out, y).backward()
                optimizer.step()
                h.detach_()
            """,
            "detach_() in place also cuts the chain",
        ),
        Clean(
            """
            for x, y in loader:
                hidden = model.init_hidden(x.size(0))
                out, hidden = model(x, hidden)
                criterion(out, y).backward()
            """,
            "a fresh state every batch",
        ),
        Clean(
            """
            for i, (x, y) in enumerate(loader):
                if i % 35 == 0:
                    hidden = tuple(v.detach() for v in hidden)
                out, hidden = lstm(x, hidden)
                criterion(out, y).backward(retain_graph=True)
            """,
            "TBPTT over 35 steps: the state is detached at each boundary",
        ),
        Clean(
            """
            import torch
            with torch.no_grad():
                for batch in loader:
                    out, state = model(batch, state)
            """,
            "under no_grad the state carries no graph",
        ),
        Clean(
            """
            class Net(nn.Module):
                def forward(self, xs, h):
                    for x in xs:
                        out, h = self.cell(x, h)
                    return out, h
            """,
            "unrolling over time steps inside forward is the normal forward pass",
        ),
        Clean(
            """
            class StatefulLSTM(nn.Module):
                def forward(self, x):
                    out, self.state = self.lstm(x, self.state)
                    return self.head(out)

                def detach_state(self):
                    self.state = tuple(s.detach() for s in self.state)
            """,
            "the module offers a method that detaches its state, which the training loop calls",
        ),
        Clean(
            """
            import torch

            def pgd(model, x, y, steps=10, alpha=0.01):
                adv = x.clone()
                for _ in range(steps):
                    adv = adv.detach().requires_grad_(True)
                    loss = F.cross_entropy(model(adv), y)
                    grad, = torch.autograd.grad(loss, adv)
                    adv = adv + alpha * grad.sign()
                return adv.detach()
            """,
            "each step starts from a fresh leaf",
        ),
        Clean(
            """
            import torch

            @torch.no_grad()
            def update_ema(model, ema, decay=0.999):
                for ema_p, p in zip(ema.parameters(), model.parameters()):
                    ema_p.mul_(decay).add_(p, alpha=1 - decay)

            for x, y in loader:
                criterion(model(x), y).backward()
                optimizer.step()
                update_ema(model, ema_model)
            """,
            "the EMA update runs under torch.no_grad()",
        ),
        Clean(
            """
            import torch

            @torch.no_grad()
            def generate(model, ids, steps):
                out = model(ids, use_cache=True)
                past = out.past_key_values
                for _ in range(steps):
                    out = model(ids[:, -1:], past_key_values=past, use_cache=True)
                    past = out.past_key_values
                    ids = torch.cat([ids, out.logits[:, -1:].argmax(-1)], dim=1)
                return ids
            """,
            "generation under torch.no_grad()",
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
            optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)
        """,
        leaky="""
            inputs, targets = batch
            optimizer.zero_grad()
            out, h = rnn(inputs, h)
            loss = F.mse_loss(head(out[:, -1]), targets)
            loss.backward()
            optimizer.step()
        """,
        fixed="""
            inputs, targets = batch
            optimizer.zero_grad()
            h = h.detach()
            out, h = rnn(inputs, h)
            loss = F.mse_loss(head(out[:, -1]), targets)
            loss.backward()
            optimizer.step()
        """,
        meter="error",
        expectation=(
            "raises \"Trying to backward through the graph a second time\" on iteration 2"
        ),
        raises="Trying to backward through the graph a second time",
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        # With retain_graph=True hiding it, the retain is the finding (TLK202), whose message
        # names the state and where to detach it: one leak, one finding. (In 31 blind cases
        # with such a retain, 23 authors marked the retain alone.)
        papered = papered_by_a_retain(facts)
        zeroed: set[int] = set()
        for loop, binding in carried_where_fixed(facts):
            if papered(binding):
                continue
            if bounded_by_each_call(facts, loop, binding):
                continue  # (a chain one call of a per-batch function long, never differentiated)
            if binding.value.double_backward and sums_into_itself(binding):
                continue  # a running sum of create_graph gradients: TLK301 reports it
            key, where = binding.key, ""
            trains = _trains(facts, loop, binding)
            consequence = "the second backward fails, or memory grows" if trains else "memory grows every iteration"
            zeroing = history_keeping_reset(facts, loop, binding.key) if binding.in_callee else None
            if zeroing is not None:
                # ``reset_states()`` zeroes the membrane in place: the fix is the reset, not the
                # forward (detaching there would cut the gradient within each sample)
                if id(zeroing.node) in zeroed:
                    continue
                zeroed.add(id(zeroing.node))
                statement = statement_text(facts, zeroing.node)
                fields = {
                    "key": zeroing.key,
                    "where": f" ({statement} in {zeroing.function.name} gives it new values but keeps its autograd history)",
                    "consequence": consequence,
                    "fix": f"reset it without its history: {zeroing.key} = torch.zeros_like({zeroing.key}) (or {zeroing.key}.detach_().zero_())",
                }
                yield Report(zeroing.node, {**fields, "statement": statement}, zeroing, loop)
                continue
            if binding.in_callee.endswith(".forward"):
                # A module's forward updates its own state from its input: fixed in the forward.
                key = "self." + binding.key.rsplit(".", 1)[-1]
                where = f" (updated by {binding.in_callee} from its input)"
                fix = "update it under torch.no_grad() (or from detached values) in that forward"
                if (slot := _slot_written(binding)) is not None:
                    fix = f"write {slot}.detach() into it in that forward"  # (a streaming RNN's state: its gradient within the call is needed)
            elif binding.in_callee and (handed := _argument_handed_to(binding, facts)) is not None:
                # the call that hands a helper what it averages: a number, or a detached tensor
                method = binding.in_callee.rsplit(".", 1)[-1]
                value = statement_text(facts, handed, limit=40)
                where = f" (averaged into it by {binding.in_callee}, which this call gives {value})"
                fix = f"pass {item_fix(facts, handed)}.item() (or .detach()), or make the update under torch.no_grad() in {method}"
            elif binding.in_callee and not (_fed_to_a_forward(binding) and _result_backwarded(facts, binding.in_callee)):
                how = "updated" if single_assign(binding.node) is not None else "updated in place"  # (``self.gap = m * self.gap + ...``)
                where = f" ({how} by {binding.in_callee} from tensors that require grad)"
                fix = f"make the update under torch.no_grad() in {binding.in_callee.rsplit('.', 1)[-1]}"
                operand = folded_operand(facts, binding.node)
                if operand is not None:
                    # (a moving average of one graph the helper computes: its operand, detached)
                    fix = f"average {item_fix(facts, operand)}.detach() instead (or {fix})"
            elif (reset := uncalled_reset(facts, loop, binding.key)) is not None:
                # the class can reset it, and nothing calls that: call it, where the fix belongs
                fix = f"call {reset.rsplit('.', 1)[-1]}() once per training iteration (nothing in the file calls {reset})"
            elif not trains:
                fix = "nothing backwards it here: run the loop under torch.no_grad() (or torch.inference_mode())"
            elif (averaged := averaged_operand(facts, binding)) is not None:
                value = item_fix(facts, averaged.value_node)
                if evidence(facts, binding.function).one_element(averaged.value_node):
                    fix = f"average {value}.item() instead (or {value}.detach())"
                else:
                    fix = f"average {value}.detach() instead"
            elif _updated_in_place(binding):
                # (``targ.mul_(r).add_(src, alpha=1 - r)`` over a list of tensors: an average of
                # weights, which no backward needs)
                fix = "make the in-place update under torch.no_grad()"
            elif _starts_as_leaf(binding):
                fix = f"start each iteration from a fresh leaf: {key} = {key}.detach().requires_grad_()"
            elif (detaching := detach_statement(binding, key)) is not None:
                fix = f"detach it each iteration: {detaching}"
            elif (slot := _slot_written(binding)) is not None:
                fix = f"write {slot}.detach() into it"  # (``self.hidden[i] = state`` of a streaming forward)
            else:
                fix = "detach it (each tensor it holds) at the start of each iteration"
            if _names_a_file(binding.via):
                where = f" ({binding.via})"  # another module's helper updates it: name its file
            fields = {"key": key, "where": where, "consequence": consequence, "fix": fix}
            yield Report(binding.node, {**fields, "statement": statement_text(facts, binding.node)}, binding, loop)

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        binding, loop = report.event, report.loop
        if not isinstance(binding, Binding) or loop is None:
            return None
        averaged = averaged_operand(facts, binding) if _trains(facts, loop, binding) else None
        if averaged is not None:
            return accumulation_fix(facts, averaged)  # (the same edit as a sum's: ``loss.item()``)
        if binding.in_callee or binding.keeps_history or _updated_in_place(binding) or _starts_as_leaf(binding) or not _trains(facts, loop, binding):
            return None  # the edit is not a detach at the top of this loop
        if uncalled_reset(facts, loop, binding.key) is not None:
            return None  # the class's own reset, called by the training loop, is the fix
        if written_by_slot(binding):
            return None  # a dict or list of states: no one-line detach fits it
        return carried_state_fix(facts, loop, binding)


def _trains(facts: FileFacts, loop: Loop, binding: Binding) -> bool:
    """Something backwards what the loop computes: a backward in it or around it, in the
    function, in a caller of the function, or the framework behind a per-batch method
    (Lightning backwards what ``training_step`` returns)."""
    evidence = facts.evidence
    return (
        loop.per_batch_method
        or any(outer.has_backward or outer.opaque_use for outer in loop.enclosing())
        or binding.function.summary.calls_backward
        or (evidence is not None and binding.function.name in evidence.backwarded_results)
    )


def carried_state_fix(facts: FileFacts, loop: Loop, binding: Binding) -> Fix | None:
    """Detach a carried state at the top of every iteration, in the form its shapes allow."""
    made = state_fix_edit(facts, binding.function, loop, binding.key)
    if made is None:
        return None
    edit, certain, text = made
    function = binding.function
    if loop.has_backward or loop.per_batch_method:
        # The original's second backward through the chain fails, or nothing differentiates
        # through the state: either way only a backward after the loop could want the chain.
        harmless = not any(call.seq > loop.end for call in function.backwards)
    else:
        harmless = not function.backwards and not function.returns.attached and not function.stores
    if not certain:
        reason = f"what '{binding.key}' holds when an iteration starts is not known for certain (None, a tensor, a tuple, a number?)"
    elif not harmless:
        reason = "a backward after the loop, or a value kept from it, could be meant to go through every iteration"
    else:
        reason = f"'{binding.key}' starts as a known tensor (or tuple of tensors) and no gradient is meant to flow between iterations"
    return Fix("safe" if certain and harmless else "unsafe", f"insert '{text}' at the top of the iteration", (edit,), reason=reason)


def _updated_in_place(binding: Binding) -> bool:
    """The statement carrying the state is an in-place method call (``targ.mul_(r).add_(src)``),
    not an assignment: there is no name to detach at the top of the loop."""
    statement = binding.node
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
        statement = statement.body[0]
    call = statement.value if type(statement) is cst.Expr else None
    return type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value in vocab.IN_PLACE_UPDATES


def _starts_as_leaf(binding: Binding) -> bool:
    """The state starts as a tensor that requires grad (``adv = x.clone().requires_grad_()``),
    which the loop differentiates: a plain ``.detach()`` would make the next ``grad`` call fail."""
    return any(other.key == binding.key and other.value.leaf for other in binding.function.bindings)


def _result_backwarded(facts: FileFacts, function: str) -> bool:
    """A caller in the file backwards what ``function`` returns (an episode's log-probs)."""
    return facts.evidence is not None and function in facts.evidence.backwarded_results


def _fed_to_a_forward(binding: Binding) -> bool:
    """The state comes out of a call given its previous value (``out, self.prev_hid =
    self.policy_net(obs, self.prev_hid)``): a recurrent state, whose gradient within the call
    is needed; no_grad around the update would stop training, detaching it would not."""
    assign = single_assign(binding.node)
    if assign is None or type(assign.value) is not cst.Call:
        return False
    own = "self." + binding.key.rsplit(".", 1)[-1]
    return any(own in mentions(arg.value) for arg in assign.value.args)


def _slot_written(binding: Binding) -> str | None:
    """The name written into a slot of the state (``self.hidden[i] = state``), if that is the
    statement that carries it."""
    assign = single_assign(binding.node)
    if assign is None or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Subscript or type(assign.value) is not cst.Name:
        return None
    return assign.value.value


def _names_a_file(via: str) -> bool:
    """``RunningMeanStd.update in utils.py:24 carries it in ...``: the helper of another module."""
    return re.search(r" in \S+\.py(:\d+)? ", via) is not None


def _argument_handed_to(binding: Binding, facts: FileFacts) -> cst.BaseExpression | None:
    """The first argument of the call of ``binding.in_callee`` that ``binding`` is (the caller's
    statement ``self.smoother.update(loss)``, not the helper's own average); None otherwise."""
    method = binding.in_callee.rsplit(".", 1)[-1]
    statement = binding.node
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
        statement = statement.body[0]
    call = statement.value if isinstance(statement, (cst.Expr, cst.Assign)) else None
    if type(call) is not cst.Call:
        return None
    if last_identifier(call.func) != method:
        return None
    # (the argument that holds a graph: ``logger.update(iter_num, loss, dt)`` averages ``loss``)
    given = next(
        (arg.value for arg in call.args if not arg.star and (value := facts.values.get(id(arg.value))) is not None and value.records_graph), None
    )
    if given is None:
        return None
    if type(given) is cst.Name and any(
        type(loop.node) is cst.For and given.value in loop.loop_targets and binding.key in mentions(loop.node.iter)
        for loop in facts.loops
    ):
        # (``update_ema(params, self.master_params)`` in ``for rate, params in zip(rates,
        # self.ema_params)``: what it is given first is the state itself, updated in place)
        return None
    return given
