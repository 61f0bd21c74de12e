"""TLK101: a graph-attached value summed into an accumulator that outlives the iteration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from torchleak.analysis.flow import additive_terms, single_assign
from torchleak.analysis.names import dotted
from torchleak.analysis.facts import Accumulation, FileFacts, Kind, Loop
from torchleak.analysis.values import Value
from torchleak.analysis.queries import (
    HANDED_TO, attached_entry_written, bindings_by_key, held_across_iterations, item_fix, reaching_binding, record_entry_behind, returned_by_products, statement_text,
)
from torchleak.edits import accumulation_fix, evidence
from torchleak.rule import Clean, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class AccumulatedLoss(Rule):
    """## What it does
    Flags `total += loss`, `total = total + loss` and running averages such as
    `avg = 0.9 * avg + 0.1 * loss` inside a loop over batches, when `loss` is still attached to
    the autograd graph and the accumulator lives from one iteration to the next.

    ## Why is this bad?
    A tensor that is attached to the graph references the node that produced it, which
    references its inputs' nodes, and so on back to the parameters. Adding it to an
    accumulator makes the accumulator's own graph node point at this iteration's graph, and
    the next addition points at that one: every iteration's graph stays reachable for as long
    as the accumulator lives. In an evaluation loop without `torch.no_grad()` that is every
    batch's saved activations; in a training loop, where `backward()` already freed the saved
    tensors, it is still one chain of autograd nodes per step on the host heap.

    ## Known problems
    A call the analysis cannot classify (a helper from another module) yields an unknown value
    and is not reported. An accumulator that is later passed to `backward()` in the same
    function (gradient accumulation over micro-batches) is intended and not reported.
    """

    code: ClassVar[str] = "TLK101"
    name: ClassVar[str] = "accumulated-loss"
    message: ClassVar[str] = (
        "'{statement}' keeps the autograd graph of every iteration alive{through}; {advice}"
    )
    fix_safety: ClassVar[FixSafety] = "safe"
    fix_rationale: ClassVar[str] = (
        "Accumulates `loss.item()` where that provably changes nothing but the leak: the value is a "
        "one-element tensor (`loss.backward()` is called on it, or it is a mean-reduced loss, or the "
        "accumulator is read as one number) and the accumulator is a local name only ever read as a "
        "number (arithmetic, formatting, `float()`, `print` and logging calls). Otherwise it accumulates "
        "`loss.detach()`, which keeps the accumulator a tensor of the same value: safe when the value is "
        "known to be a tensor and the accumulator never leaves the function; unsafe when the accumulator "
        "is returned, stored or an attribute (a caller could backward through it) or the value's type is "
        "not known. On a GPU, `.item()` waits for the step to finish."
    )
    fixed_example: ClassVar[str] = """
        total_loss = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            total_loss = 0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total_loss += loss  # TLK101
            """,
            "the canonical case: a training loop summing the loss tensor",
        ),
        Flagged(
            """
            running = 0.0
            for step, (x, y) in enumerate(train_loader):
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                running = running + loss * x.size(0)  # TLK101
            """,
            "written out as an assignment, with arithmetic around the loss",
        ),
        Flagged(
            """
            def evaluate(model, val_loader, criterion):
                model.eval()
                total = 0.0
                for x, y in val_loader:
                    total += criterion(model(x), y)  # TLK101
                return total / len(val_loader)
            """,
            "an evaluation loop without torch.no_grad(): every batch's activations stay alive",
        ),
        Flagged(
            """
            stats = {"loss": 0.0}
            for batch in loader:
                outputs = model(**batch)
                outputs.loss.backward()
                optimizer.step()
                stats["loss"] += outputs.loss  # TLK101
            """,
            "a dict slot as the accumulator",
        ),
        Flagged(
            """
            class Trainer:
                def fit(self, loader):
                    for x, y in loader:
                        loss = self.criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        self.epoch_loss += loss  # TLK101
            """,
            "an attribute as the accumulator",
        ),
        Flagged(
            """
            import lightning as L
            class LitModel(L.LightningModule):
                def training_step(self, batch, batch_idx):
                    x, y = batch
                    loss = F.cross_entropy(self(x), y)
                    self.running_loss += loss  # TLK101
                    return loss
            """,
            "a Lightning training_step runs once per batch, so self.* outlives it",
        ),
        Flagged(
            """
            class AverageMeter:
                def __init__(self):
                    self.sum, self.count = 0.0, 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n


            losses = AverageMeter()
            for x, y in train_loader:
                loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.update(loss, x.size(0))  # TLK101
            """,
            "a meter defined in the file whose update() adds its argument to self.sum: found at the call, through the method's summary",
        ),
        Flagged(
            """
            import torch

            class ComputeLoss:
                def __call__(self, pred, target):
                    lbox = (pred[:, :4] - target[:, :4]).abs().mean()
                    lcls = (pred[:, 4:] - target[:, 4:]).pow(2).mean()
                    return lbox + lcls, torch.stack((lbox, lcls))  # TLK101

            compute_loss = ComputeLoss()
            mloss = torch.zeros(2)
            for i, (x, y) in enumerate(train_loader):
                loss, loss_items = compute_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mloss = (mloss * i + loss_items) / (i + 1)
            """,
            "a running mean of what the loss helper hands back beside the loss (YOLO's mloss): found at the helper's return, where .detach() goes",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            total_loss = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total_loss += loss.item()
            """,
            ".item() turns the loss into a Python float with no graph",
        ),
        Clean(
            """
            total_loss = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total_loss += loss.detach()
                total_loss += float(loss)
                total_loss += loss.data
            """,
            ".detach(), float() and .data all cut the graph",
        ),
        Clean(
            """
            import torch
            total = 0.0
            with torch.no_grad():
                for x, y in val_loader:
                    total += criterion(model(x), y)
            """,
            "nothing computed under torch.no_grad() is attached to a graph",
        ),
        Clean(
            """
            import torch
            @torch.no_grad()
            def evaluate(model, loader):
                total = 0.0
                for x, y in loader:
                    total += criterion(model(x), y)
                return total
            """,
            "the whole function runs under @torch.no_grad()",
        ),
        Clean(
            """
            from torch import inference_mode
            def evaluate(model, loader):
                total = 0.0
                with inference_mode():
                    for x, y in loader:
                        total = total + criterion(model(x), y)
                return total
            """,
            "inference_mode, imported by name, is a no-grad region too",
        ),
        Clean(
            """
            optimizer.zero_grad()
            total = 0.0
            for x, y in micro_batches:
                total += criterion(model(x), y) / len(micro_batches)
            total.backward()
            optimizer.step()
            """,
            "gradient accumulation: the accumulated loss is backwarded, which is the point",
        ),
        Clean(
            """
            accumulated = 0
            for i, (x, y) in enumerate(loader):
                accumulated = accumulated + criterion(model(x), y) / 4
                if (i + 1) % 4 == 0:
                    accumulated.backward()
                    optimizer.step()
                    accumulated = 0
            """,
            "the accumulator is backwarded every four steps and then reset",
        ),
        Clean(
            """
            correct = 0
            for x, y in loader:
                out = model(x)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
                correct += (out.argmax(dim=1) == y).sum()
            """,
            "comparisons and argmax give integer tensors, which carry no graph",
        ),
        Clean(
            """
            def compute_loss(outputs, targets):
                loss = 0
                for out, target in zip(outputs, targets):
                    loss += criterion(out, target)
                return loss
            """,
            "summing several heads' losses inside one step is not a loop over batches",
        ),
        Clean(
            """
            for x, y in loader:
                epoch_loss = 0
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                epoch_loss += loss
            """,
            "the accumulator is reset at the top of every iteration, so it holds one graph at most",
        ),
        Clean(
            """
            def step(model, batch):
                loss = model(batch).mean()
                loss.backward()
                return loss.item()


            total_loss = 0
            for batch in loader:
                total_loss += step(model, batch)
            """,
            "the file's own helper returns loss.item(): a float has no graph (and .item() on it would crash)",
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
            total_loss = 0
        """,
        leaky="""
            inputs, targets = batch
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            total_loss += loss
        """,
        fixed="""
            inputs, targets = batch
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        """,
        meter="heap",
        expectation=(
            "keeps at least 10,000 B of autograd nodes on the host heap every iteration "
            "(11,300 B measured) and no tensor memory: backward() already freed the saved tensors"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        for event, loop in held_across_iterations(facts, double_backward=False):
            record = record_entry_behind(facts, event) if isinstance(event, Accumulation) else None
            if record is not None:
                # a record a helper returns, numbers but one entry (icefall's ``info["loss"] =
                # loss.cpu()``), summed here: that entry is where the fix goes
                keeper, written_entry = record
                yield _entry_report(facts, written_entry, keeper.name, f"{event.function.name} sums what {keeper.name} returns into {event.key} every iteration", loop)
                continue
            if isinstance(event, Accumulation):
                value = item_fix(facts, _added_operand(event))
                given = facts.values.get(id(event.value_node))
                advice = _advice(value, given, event.via)
                if HANDED_TO in event.via:
                    # the holder a helper is handed, filled here: convert what fills it
                    advice = f"store {value}.item() here (or {value}.detach())"
                elif event.in_callee and not (given is not None and given.kind in (Kind.TUPLE, Kind.CONTAINER)):
                    # summed in the helper, from what its caller gives it: the fix is this line
                    advice = f"accumulate {value}.item() here (or {value}.detach())"
                elif event.via and event.value_node is event.node:
                    # the helper computes what it adds itself (``total = step(batch, total)``)
                    helper = event.via.split(" ", 1)[0]
                    advice = f"add .item() (or .detach()) of what {helper} computes, inside {helper}"
                elif not loop.has_backward and not loop.per_batch_method and not evidence(facts, event.function).one_element(event.value_node):
                    # a running sum of non-scalar tensors in a loop that never backwards (a
                    # decoder's inference loop): ``.item()`` would raise there
                    advice = f"accumulate {value}.detach(), or run the loop under torch.no_grad() if nothing backwards it"
                elif (
                    event.via and given is not None and given.kind is Kind.TENSOR and _a_model_output(facts, event)
                    and isinstance(event.node, cst.Call) and any(arg.value is event.value_node for arg in event.node.args)
                ):
                    # a model's output handed to a metric helper: ``.item()`` of it would raise
                    helper = event.via.split(" ", 1)[0]
                    advice = f"pass {value}.detach() to {helper} (or compute its sums under torch.no_grad())"
                yield Report(
                    event.node,
                    {
                        "statement": statement_text(facts, event.node),
                        "fix": value,
                        "advice": advice,
                        "through": f" ({event.via})" if event.via else "",
                    },
                    event,
                    loop,
                )

        for item in returned_by_products(facts):
            # the helper's return is where the fix goes (YOLO's ComputeLoss: ``.detach()`` there)
            caller = item.binding.function.name.rsplit(".", 1)[-1]
            element = statement_text(facts, item.element, limit=40)
            # (``ComputeLoss`` for its ``__call__``, as the caller sees it)
            owner, _, method = item.helper.name.rpartition(".")
            helper = owner if owner and method in ("__call__", "forward") else item.helper.name
            entry_statement = attached_entry_written(facts, item.helper.node, item.element)
            if entry_statement is not None:
                # a record of numbers but one entry (icefall's ``info["loss"] = loss.cpu()``):
                # that entry is where the fix goes, a dict has no ``.detach()``
                yield _entry_report(facts, entry_statement, helper, f"{caller} folds {element} into {item.binding.key} as {item.name}, every iteration", item.loop)
                continue
            yield Report(
                item.element,
                {
                    "statement": f"return ..., {element}",
                    "fix": element,
                    "advice": f"return {element}.detach() from {helper}: nothing backwards it",
                    "through": f" ({caller} folds it into {item.binding.key} as {item.name}, every iteration)",
                },
                None,
                item.loop,
            )

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        return accumulation_fix(facts, report.event) if isinstance(report.event, Accumulation) else None


def _entry_report(facts: FileFacts, entry: cst.Assign, helper: str, through: str, loop: Loop) -> Report:
    """The finding at the one statement of ``helper`` writing an attached entry into the record
    it returns (``info["loss"] = loss.cpu()``): a dict has no ``.detach()``, the entry is fixed."""
    written = statement_text(facts, entry.value, limit=40)
    fields = {"statement": statement_text(facts, entry), "fix": written, "advice": f"store {written}.item() (or .detach()) in {helper}", "through": f" ({through})"}
    return Report(entry, fields, None, loop)


def _a_model_output(facts: FileFacts, event: Accumulation) -> bool:
    """What the event sums is a name bound, last before it, from a forward call (``mu, sigma, h, c
    = model(x, idx, h, c)``): a model's output, not a loss, so ``.item()`` of it would raise."""
    name = dotted(event.value_node)
    bound = reaching_binding(bindings_by_key(event.function.bindings), name, event.seq) if name is not None else None
    if bound is None:
        return False
    assign = single_assign(bound.node)
    return assign is not None and type(assign.value) is cst.Call and id(assign.value) in facts.forward_calls


def _added_operand(event: Accumulation) -> cst.BaseExpression:
    """What a written-out sum adds to its target: ``accuracy(mu, y)`` of ``m["nd"] = m["nd"] +
    accuracy(mu, y)`` (``.item()`` of the whole sum would convert the total, not the term)."""
    assign = single_assign(event.node)
    if assign is None or len(assign.targets) != 1 or type(event.value_node) is not cst.BinaryOperation:
        return event.value_node
    rest = [term for term in additive_terms(event.value_node) if not term.deep_equals(assign.targets[0].target)]
    return rest[0] if len(rest) == 1 else event.value_node


def _advice(value: str, given: Value | None, via: str) -> str:
    """What to accumulate instead, by what the accumulated expression is: a number or a
    result holding no graph (a helper that returns floats) leaves the fix to the helper that
    accumulates its own values; a tuple or dict of tensors is made of numbers entry by entry."""
    if given is not None and via and (given.detached or (given.elements is not None and not any(e.attached for e in given.elements))):
        helper = via.split(" ", 1)[0]
        return f"accumulate detached values (or .item() numbers) inside {helper}"
    if given is not None and given.kind is Kind.TUPLE:
        return f"pass plain numbers instead (tuple(t.item() for t in {value}))"
    if given is not None and given.kind is Kind.CONTAINER:
        # ``tracker.update(loss_dict)``: numbers for each entry, not ``.item()`` of a dict
        return f"pass plain numbers instead ({{k: v.item() for k, v in {value}.items()}} for a dict)"
    if given is not None and via and given.kind is Kind.UNKNOWN:
        # handed to a helper, and not known to be one tensor: it may be a dict of them
        return f"pass {value}.item() (or .item() of each tensor it holds)"
    return f"accumulate {value}.item() (or {value}.detach())"
