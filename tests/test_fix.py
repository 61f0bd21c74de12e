"""``torchleak --fix``: each rule's fix before and after, its safety, and the properties every
fix must keep (parses, idempotent, the finding is gone, formatting untouched elsewhere)."""

from __future__ import annotations

import ast
import json
import os
import random
import re
from pathlib import Path
from textwrap import dedent

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_tool
from torchleak.engine import lint_source
from torchleak.engine import check_source
from torchleak.fix import FixOutcome, apply_text_edits, fix_source, offered_fixes, text_edit
from torchleak.edits import remove_argument
from torchleak.rule import Rule
from torchleak.rules import ALL_RULES, RULES_BY_CODE


def fixed(source: str, *, unsafe: bool = False, select: tuple[str, ...] = ("TLK",)) -> FixOutcome:
    return fix_source(dedent(source), unsafe=unsafe, select=select)


def assert_fix(before: str, after: str, *, unsafe: bool = False, safety: str = "safe", code: str = "") -> None:
    """``before`` becomes exactly ``after``, by fixes of ``safety``, and nothing is left to report."""
    outcome = fixed(before, unsafe=unsafe)
    assert outcome.source == dedent(after), outcome.source
    assert outcome.applied, "nothing was fixed"
    assert {fix.safety for _, fix in outcome.applied} == {safety}
    if code:
        assert {applied for applied, _ in outcome.applied} == {code}
    assert outcome.remaining == []
    if safety == "unsafe":
        assert fixed(before).source == dedent(before), "an unsafe fix was applied without --unsafe-fixes"


# --------------------------------------------------------------------------- TLK101


def test_tlk101_item_when_the_loss_is_one_element_and_the_total_is_only_read_as_a_number() -> None:
    assert_fix(
        """
        total_loss = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total_loss += loss
        print(f"epoch loss {total_loss / len(loader):.4f}")
        """,
        """
        total_loss = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        print(f"epoch loss {total_loss / len(loader):.4f}")
        """,
        code="TLK101",
    )


def test_tlk101_item_inside_arithmetic_and_an_ema() -> None:
    assert_fix(
        """
        running = 0.0
        ema = 0.0
        for step, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            running = running + loss * x.size(0)
            ema = 0.98 * ema + 0.02 * loss
        """,
        """
        running = 0.0
        ema = 0.0
        for step, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            running = running + loss.item() * x.size(0)
            ema = 0.98 * ema + 0.02 * loss.item()
        """,
    )


def test_tlk101_parenthesises_an_expression_before_item() -> None:
    assert_fix(
        """
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            total += loss * 2
        """,
        """
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            total += (loss * 2).item()
        """,
    )


@pytest.mark.parametrize(
    ("use", "safety"),
    [
        ("print(total.item())", "safe"),  # a tensor method: a float has none
        ("isinstance(total, torch.Tensor)", "safe"),  # answers differently for a float
        ("history.append(total)", "unsafe"),  # kept where the analysis cannot follow it
        ("keep(total)", "unsafe"),  # a helper that may need a tensor, or backward through it
    ],
)
def test_tlk101_detach_when_the_total_is_used_as_a_tensor(use: str, safety: str) -> None:
    outcome = fixed(
        f"""
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            total += loss
        {use}
        """,
        unsafe=True,
    )
    assert "total += loss.detach()" in outcome.source
    assert [fix.safety for _, fix in outcome.applied] == [safety]


def test_tlk101_detach_is_unsafe_when_the_total_leaves_the_function() -> None:
    before = """
        def evaluate(model, val_loader, criterion):
            model.eval()
            total = 0.0
            for x, y in val_loader:
                total += criterion(model(x), y)  # the caller could backward through it
            return total / len(val_loader)
        """
    assert_fix(before, before.replace("total += criterion(model(x), y)", "total += criterion(model(x), y).detach()"), unsafe=True, safety="unsafe")


def test_tlk101_a_value_not_known_to_be_a_tensor_gets_no_fix() -> None:
    # ``loss_fn`` comes from elsewhere: ``loss`` may be a float, whose ``.detach()`` raises.
    source = dedent(
        """
        running = 0.0
        for images, targets in train_loader:
            loss = loss_fn(model(images), targets)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            running += loss
        """
    )
    outcome = fix_source(source, unsafe=True)
    assert outcome.source == source and [f.code for f in outcome.remaining] == ["TLK101"]


def test_tlk101_attribute_and_dict_slot_accumulators() -> None:
    outcome = fixed(
        """
        class Trainer:
            def fit(self, loader):
                for x, y in loader:
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.epoch_loss += loss
        """,
        unsafe=True,
    )
    assert "self.epoch_loss += loss.detach()" in outcome.source
    assert [fix.safety for _, fix in outcome.applied] == ["unsafe"]
    assert_fix(
        """
        stats = {"loss": 0.0}
        for batch in loader:
            outputs = model(**batch)
            outputs.loss.backward()
            stats["loss"] += outputs.loss
        """,
        """
        stats = {"loss": 0.0}
        for batch in loader:
            outputs = model(**batch)
            outputs.loss.backward()
            stats["loss"] += outputs.loss.detach()
        """,
    )


# --------------------------------------------------------------------------- TLK102 and TLK301 stores


def test_tlk102_enters_dict_tuple_and_list_literals_never_detaching_the_literal() -> None:
    before = """
        history = []
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            history.append({"loss": loss, "step": step, "parts": (loss * 2, [loss.pow(2)])})
            history.append((loss, 1))
        """
    after = """
        history = []
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            history.append({"loss": loss.detach(), "step": step, "parts": ((loss * 2).detach(), [loss.pow(2).detach()])})
            history.append((loss.detach(), 1))
        """
    assert_fix(before, after, code="TLK102")
    assert "}.detach()" not in fixed(before, unsafe=True).source


def test_tlk102_a_models_output_is_detached_only_where_the_model_is_known_to_return_a_tensor() -> None:
    # A model the file does not show may return a tuple or a dict: ``.detach()`` on it raises.
    unknown = dedent(
        """
        preds = []
        model.eval()
        for x, _ in val_loader:
            preds.append(model(x))
        """
    )
    outcome = fix_source(unknown, unsafe=True)
    assert outcome.source == unknown and [f.code for f in outcome.remaining] == ["TLK102"]
    known = """
        import torch.nn as nn
        model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        preds = []
        model.eval()
        for x, _ in val_loader:
            preds.append(model(x))
        """
    assert_fix(known, known.replace("preds.append(model(x))", "preds.append(model(x).detach())"))


@pytest.mark.parametrize(
    "stored",
    ["out.unbind(0)", "out.split(2)", "out.max(1)", "torch.chunk(out, 2)", "compute(x)", "{**parts}"],
)
def test_tlk102_never_detaches_a_tuple_or_a_dict(stored: str) -> None:
    source = dedent(
        f"""
        import torch
        import torch.nn as nn
        model = nn.Linear(4, 4)

        def compute(x):
            out = model(x)
            return {{"out": out, "n": 1}}

        outs = []
        for x in loader:
            out = model(x)
            parts = compute(x)
            outs.extend({stored})
        """
    )
    outcome = fix_source(source, unsafe=True)
    assert ").detach()" not in outcome.source and "}.detach()" not in outcome.source, outcome.source


def test_tlk102_container_returned_is_unsafe_and_plus_equals_list() -> None:
    outcome = fixed(
        """
        def collect(loader):
            losses = []
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                losses += [loss]
            return losses
        """,
        unsafe=True,
    )
    assert "losses += [loss.detach()]" in outcome.source
    assert [fix.safety for _, fix in outcome.applied] == ["unsafe"]
    assert "leaves the function" in outcome.applied[0][1].reason


def test_tlk102_starred_attached_value_has_no_fix() -> None:
    source = dedent(
        """
        history = []
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            history.append([*out])
        """
    )
    outcome = fix_source(source, unsafe=True)
    assert outcome.source == source and [f.code for f in outcome.remaining] == ["TLK102"]


def test_tlk301_detaches_a_kept_gradient_result() -> None:
    assert_fix(
        """
        import torch
        norms = []
        for x, y in loader:
            loss = criterion(model(x), y)
            g = torch.autograd.grad(loss, x, create_graph=True)[0]
            penalty = g.pow(2).sum()
            (loss + penalty).backward()
            norms.append(penalty)
        """,
        """
        import torch
        norms = []
        for x, y in loader:
            loss = criterion(model(x), y)
            g = torch.autograd.grad(loss, x, create_graph=True)[0]
            penalty = g.pow(2).sum()
            (loss + penalty).backward()
            norms.append(penalty.detach())
        """,
        code="TLK301",
    )


def test_tlk301_drops_create_graph_or_keeps_the_graph_for_a_later_backward() -> None:
    assert_fix(
        """
        from torch import autograd
        for x in loader:
            energy = model(x).sum()
            forces = autograd.grad(energy, x, create_graph=True)[0]
            print(forces.norm())
        """,
        """
        from torch import autograd
        for x in loader:
            energy = model(x).sum()
            forces = autograd.grad(energy, x)[0]
            print(forces.norm())
        """,
    )
    # energy.backward() needs the forward graph, which create_graph=True kept: say so instead.
    outcome = fixed(
        """
        from torch import autograd
        for x in loader:
            energy = model(x).sum()
            forces = autograd.grad(energy, x, create_graph=True)[0]
            print(forces.norm())
            energy.backward()
        """
    )
    assert "forces = autograd.grad(energy, x, retain_graph=True)[0]" in outcome.source
    assert not [f for f in outcome.remaining if f.code == "TLK301"]


# --------------------------------------------------------------------------- TLK103 and TLK202 carried state


def test_tlk103_detaches_a_tensor_state_at_the_top_of_the_iteration() -> None:
    assert_fix(
        """
        import torch
        h = torch.zeros(1, 32, 64)
        for x, y in loader:
            # forward
            out, h = model(x, h)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        """,
        """
        import torch
        h = torch.zeros(1, 32, 64)
        for x, y in loader:
            h = h.detach()
            # forward
            out, h = model(x, h)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        """,
        code="TLK103",
    )


def test_tlk103_an_lstm_tuple_state() -> None:
    assert_fix(
        """
        import torch
        h0, c0 = torch.zeros(2, 8, 16), torch.zeros(2, 8, 16)
        hidden = (h0, c0)
        for x, y in loader:
            out, hidden = lstm(x, hidden)
            criterion(out, y).backward()
        """,
        """
        import torch
        h0, c0 = torch.zeros(2, 8, 16), torch.zeros(2, 8, 16)
        hidden = (h0, c0)
        for x, y in loader:
            hidden = tuple(v.detach() for v in hidden)
            out, hidden = lstm(x, hidden)
            criterion(out, y).backward()
        """,
    )


def test_tlk103_no_fix_for_a_state_read_as_a_dict() -> None:
    # ``batch["src"]``: a dict, which ``.detach()`` (or the unknown-shape form) would crash on
    source = dedent(
        """
        def train(model, loss_fn, loader, opt):
            batch = None
            for step, raw in enumerate(loader):
                batch = model.prepare(raw, batch)
                out = model(batch["src"])
                loss = loss_fn(out, batch["tgt"])
                opt.zero_grad()
                loss.backward()
                opt.step()
        """
    )
    outcome = fixed(source, unsafe=True)
    assert outcome.source == source and [f.code for f in outcome.remaining] == ["TLK103"]


def test_tlk103_state_starting_as_none_from_an_unknown_model_fits_none_a_tensor_and_a_tuple() -> None:
    # The model may be a GRU (a tensor state) or an LSTM (an (h, c) tuple): the form fits both.
    before = """
        state = None
        for x, y in loader:
            out, state = model(x, state)
            criterion(out, y).backward()
        """
    after = """
        state = None
        for x, y in loader:
            state = tuple(v.detach() for v in state) if isinstance(state, tuple) else state.detach() if state is not None else None
            out, state = model(x, state)
            criterion(out, y).backward()
        """
    assert_fix(before, after, unsafe=True, safety="unsafe")


@pytest.mark.parametrize(
    ("start", "module", "detach"),
    [
        ("None", "nn.GRU(4, 8)", "h = h.detach() if h is not None else None"),
        ("None", "nn.LSTM(4, 8)", "h = tuple(v.detach() for v in h) if h is not None else None"),
        ("model.init_hidden(2)", "Net()", "h = tuple(v.detach() for v in h)"),
        ("torch.zeros(1, 2, 8)", "nn.GRU(4, 8)", "h = h.detach()"),
    ],
)
def test_tlk103_the_detach_fits_every_shape_the_state_takes(start: str, module: str, detach: str) -> None:
    outcome = fixed(
        f"""
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(4, 8)

            def init_hidden(self, bsz):
                return (torch.zeros(1, bsz, 8), torch.zeros(1, bsz, 8))

            def forward(self, x, h):
                return self.lstm(x, h)

        model = {module}
        h = {start}
        for x in loader:
            out, h = model(x, h)
            out.sum().backward()
        """,
        unsafe=True,
    )
    assert f"    {detach}\n    out, h = model(x, h)" in outcome.source, outcome.source


def test_tlk103_a_state_starting_as_a_number_becomes_a_tensor_unsafely() -> None:
    before = """
        import torch
        import torch.nn as nn
        encoder = nn.Linear(32, 8)
        center = 0
        for x in loader:
            feats = encoder(x)
            loss = (feats - center).pow(2).mean()
            loss.backward()
            center = 0.9 * center + 0.1 * feats.mean(0)
        """
    after = dedent(before).replace("    feats = encoder(x)", "    center = torch.as_tensor(center).detach()\n    feats = encoder(x)")
    assert_fix(dedent(before), after, unsafe=True, safety="unsafe")


def test_tlk103_per_batch_method_detaches_after_the_docstring() -> None:
    outcome = fixed(
        '''
        class LitTBPTT(LightningModule):
            def training_step(self, batch, batch_idx):
                """One chunk of the stream."""
                out, self.hidden = self.rnn(batch, self.hidden)
                self.manual_backward(out.pow(2).mean())
        ''',
        unsafe=True,
    )
    assert '"""One chunk of the stream."""\n        self.hidden = tuple(v.detach() for v in self.hidden) if isinstance(self.hidden, tuple) else self.hidden.detach() if self.hidden is not None else None\n        out, self.hidden' in outcome.source
    assert [fix.safety for _, fix in outcome.applied] == ["unsafe"]  # self.hidden may start as None


def test_tlk103_per_batch_method_detaches_before_the_first_statement_that_reads_the_state() -> None:
    """The attribute exists on some instances only (litgpt's adapter layers past ``start``):
    a detach at the top of ``forward`` would raise AttributeError on the others; after the
    early return it runs only where the attribute was made. Executed below on both kinds."""
    source = dedent(
        """
        import torch
        from torch import nn


        class Attn(nn.Module):
            def __init__(self, idx, start=1):
                super().__init__()
                self.idx, self.start = idx, start
                self.qkv = nn.Linear(4, 12)
                if idx >= start:
                    self.prefix = nn.Embedding(2, 4)
                    self.kv_cache = None

            def forward(self, x):
                y = self.qkv(x)[..., :4]
                if self.idx < self.start:  # no self.kv_cache on these layers
                    return y
                if self.kv_cache is not None:
                    k, v = self.kv_cache
                else:
                    _, k, v = self.qkv(self.prefix.weight).split(4, dim=-1)
                    self.kv_cache = (k, v)
                return y + torch.softmax(y @ k.T, -1) @ v
        """
    )
    outcome = fixed(source, unsafe=True)
    assert [code for code, _ in outcome.applied] == ["TLK103"]
    assert "            return y\n        self.kv_cache = tuple(v.detach() for v in self.kv_cache)" in outcome.source
    torch = pytest.importorskip("torch")
    namespace: dict[str, object] = {}
    exec(compile(outcome.source, "<fixed>", "exec"), namespace)
    layers = [namespace["Attn"](0), namespace["Attn"](1)]  # type: ignore[operator]
    for _ in range(3):
        for layer in layers:
            layer(torch.randn(3, 4)).sum().backward()  # the original's second backward raises


def test_insertions_in_a_one_line_suite_are_joined_with_semicolons() -> None:
    from torchleak.edits import text_edits
    from torchleak.rule import Edit, Fix

    def statement(text: str) -> cst.BaseSmallStatement:
        line = cst.parse_statement(text + "\n")
        assert isinstance(line, cst.SimpleStatementLine)
        return line.body[0]

    source = "for x in loader: out, h = model(x, h); step()\n"
    module = cst.parse_module(source)
    loop = module.body[0]
    assert isinstance(loop, cst.For) and isinstance(loop.body, cst.SimpleStatementSuite)
    first, last = loop.body.body[0], loop.body.body[-1]
    edits = (Edit(first, before=(statement("h = h.detach()"),)), Edit(last, after=(statement("c = tuple(v.detach() for v in c)"),)))
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def locate(node: cst.CSTNode) -> tuple[int, int, int, int]:
        where = positions[node]
        return where.start.line, where.start.column, where.end.line, where.end.column

    placed = text_edits(Fix("safe", "", edits), locate, lambda n: source.splitlines()[n - 1])
    assert placed is not None
    assert apply_text_edits(source, placed) == (
        "for x in loader: h = h.detach(); out, h = model(x, h); step(); c = tuple(v.detach() for v in c)\n"
    )


def test_tlk202_fix_detaches_the_carry_once_and_drops_retain_graph() -> None:
    before = """
        import torch
        h = torch.zeros(1, 32, 64)
        for x, y in loader:
            out, h = gru(x, h)
            loss = criterion(out, y)
            loss.backward(retain_graph=True)
            optimizer.step()
        """
    outcome = fixed(before, unsafe=True)
    assert outcome.source == dedent(
        """
        import torch
        h = torch.zeros(1, 32, 64)
        for x, y in loader:
            h = h.detach()
            out, h = gru(x, h)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        """
    ), outcome.source
    assert {(code, fix.safety) for code, fix in outcome.applied} >= {("TLK202", "unsafe")}
    assert outcome.remaining == []
    # The carried state is reported once, at the retain (TLK202), whose fix changes the
    # gradients (to truncated backpropagation): safe fixes alone leave the code as it was.
    safe = fixed(before)
    assert safe.source == dedent(before) and [finding.code for finding in safe.remaining] == ["TLK202"], safe


def test_tlk202_keeps_retain_graph_a_later_backward_needs_and_detaches_each_state_once() -> None:
    outcome = fixed(
        """
        import torch
        h, c = torch.zeros(1, 4, 8), torch.zeros(1, 4, 8)
        for x, y in loader:
            out, (h, c) = lstm(x, (h, c))
            criterion(out, y).backward(retain_graph=True)
            out.pow(2).mean().backward(retain_graph=True)
        """,
        unsafe=True,
    )
    assert outcome.source.count("h = h.detach()") == 1 and outcome.source.count("c = c.detach()") == 1
    assert "criterion(out, y).backward(retain_graph=True)" in outcome.source
    assert "out.pow(2).mean().backward()" in outcome.source
    assert outcome.remaining == []


# --------------------------------------------------------------------------- TLK201 and arguments


def test_tlk201_removes_retain_graph() -> None:
    assert_fix(
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)  # keep this comment
            optimizer.step()
        """,
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()  # keep this comment
            optimizer.step()
        """,
        code="TLK201",
    )


def test_tlk201_unsafe_when_a_backward_follows_the_loop() -> None:
    before = """
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)
        loss.backward()
        """
    assert_fix(before, before.replace("loss.backward(retain_graph=True)", "loss.backward()"), unsafe=True, safety="unsafe")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("loss.backward(retain_graph=True)", "loss.backward()"),
        ("f(a, retain_graph=True)", "f(a)"),
        ("f(a, retain_graph=True, b=1)", "f(a, b=1)"),
        ("f(retain_graph=True, b=1)", "f(b=1)"),
        ("f( retain_graph = True )", "f()"),
        ("f(a,retain_graph=True)", "f(a)"),
        ("f(\n    a,\n    retain_graph=True,\n)", "f(\n    a,\n)"),
        ("f(\n    a,\n    retain_graph=True\n)", "f(\n    a\n)"),
        ("f(\n    a,  # the tensor\n    retain_graph=True,\n    b=1,\n)", "f(\n    a,  # the tensor\n    b=1,\n)"),
        ("f(\n    retain_graph=True\n)", "f()"),
    ],
)
def test_removing_an_argument_keeps_the_call_tidy(before: str, after: str) -> None:
    call = cst.parse_expression(before)
    assert isinstance(call, cst.Call)
    arg = next(a for a in call.args if a.keyword is not None and a.keyword.value == "retain_graph")
    assert cst.Module([]).code_for_node(remove_argument(call, arg)) == after


# --------------------------------------------------------------------------- TLK302


def test_tlk302_unsafe_zero_grad_after_the_step_or_no_fix() -> None:
    before = """
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward(create_graph=True)
            penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
            penalty.backward()
            if step % 4 == 0:
                optimizer.step()
        """
    after = before.replace(
        "                optimizer.step()\n",
        "                optimizer.step()\n                optimizer.zero_grad(set_to_none=True)\n",
    )
    assert_fix(before, after, unsafe=True, safety="unsafe", code="TLK302")
    manual = dedent(
        """
        import torch
        def hessian_step(loss, params):
            torch.autograd.backward(loss, create_graph=True)
            return [p.grad for p in params]
        """
    )
    outcome = fix_source(manual, unsafe=True)
    assert outcome.source == manual and [f.code for f in outcome.remaining] == ["TLK302"]


# --------------------------------------------------------------------------- formatting, noqa, errors


def test_formatting_comments_and_odd_spacing_outside_the_edit_are_kept_byte_for_byte() -> None:
    before = (
        "#!/usr/bin/env python\r\n"
        "# -*- coding: utf-8 -*-\r\n"
        "import torch  ;  import torch.nn as nn   # two imports\r\n"
        "total_loss=0\r\n"
        "h = torch.zeros( 1,4 ,8 )\r\n"
        "for x , y in loader :   # the loop\r\n"
        "\tout , h = model( x , h )\r\n"
        "\r\n"
        "\t# a comment line\r\n"
        "\tloss=criterion( out,y )  \r\n"
        "\tloss.backward( retain_graph = True )\t# why not\r\n"
        "\ttotal_loss  +=  loss   # sum\r\n"
        "print('done' )\r\n"
    )
    outcome = fix_source(before, unsafe=True)
    assert outcome.remaining == []
    expected = (
        before.replace("\tout , h", "\th = h.detach()\r\n\tout , h")
        .replace("loss.backward( retain_graph = True )", "loss.backward()")
        .replace("total_loss  +=  loss ", "total_loss  +=  loss.item() ")
    )
    assert outcome.source == expected


def test_noqa_findings_are_not_fixed() -> None:
    source = dedent(
        """
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)  # noqa: TLK201
            total += loss  # noqa
        """
    )
    assert fix_source(source, unsafe=True).source == source


def test_ignored_rules_are_not_fixed() -> None:
    source = dedent(
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)
        """
    )
    assert fix_source(source, ignore=("TLK201",)).source == source
    assert "loss.backward()" in fix_source(source, select=("TLK201",)).source


@pytest.mark.parametrize("source", ["for x in loader:\n    total += loss(\n", "def f(:\n    loss.backward(retain_graph=True)\n"])
def test_syntax_errors_are_left_untouched(source: str) -> None:
    outcome = fix_source(source, unsafe=True)
    assert outcome.source == source and not outcome.applied and outcome.result.syntax_error is not None


def test_a_fix_that_would_not_parse_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    from torchleak.rule import Edit, Fix

    rule = RULES_BY_CODE["TLK201"]

    def broken(self: Rule, report: object, facts: object) -> Fix:
        return Fix("safe", "break it", (Edit(report.node, cst.Name("not valid here")),))  # type: ignore[attr-defined]

    monkeypatch.setattr(rule, "fix", broken)
    source = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward(retain_graph=True)\n"
    outcome = fix_source(source)
    assert outcome.source == source and not outcome.applied


def test_a_fix_that_would_not_compile_is_dropped() -> None:
    # Detaching at the top of the body would put a statement before `global h`: CPython refuses.
    source = dedent(
        """
        import torch
        h = torch.zeros(1, 4, 8)
        def train():
            for x, y in loader:
                global h
                out, h = model(x, h)
                criterion(out, y).backward()
        """
    )
    compile(source, "<s>", "exec")
    outcome = fix_source(source, unsafe=True)
    assert outcome.source == source and [f.code for f in outcome.remaining] == ["TLK103"]


def test_a_fix_that_raises_leaves_the_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def raising(self: Rule, report: object, facts: object) -> None:
        raise RuntimeError("bug in a fix")

    monkeypatch.setattr(RULES_BY_CODE["TLK201"], "fix", raising)
    source = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward(retain_graph=True)\n"
    outcome = fix_source(source)
    assert outcome.source == source and [f.code for f in outcome.remaining] == ["TLK201"]


def test_a_fix_that_leaves_its_finding_is_undone_and_not_repeated(monkeypatch: pytest.MonkeyPatch) -> None:
    # A fix that does not remove what it reports (the graph is kept elsewhere) changed the code
    # for nothing: it is undone, not applied pass after pass (``.detach().detach()...``).
    from torchleak.rule import Edit, Fix

    rule = RULES_BY_CODE["TLK201"]

    def respaced(self: Rule, report: object, facts: object) -> Fix:
        node = report.node  # type: ignore[attr-defined]
        assert isinstance(node, cst.Arg)
        spaced = node.with_changes(equal=cst.AssignEqual(cst.SimpleWhitespace(" "), cst.SimpleWhitespace(" ")))
        return Fix("safe", "respace it", (Edit(node, spaced),))

    monkeypatch.setattr(rule, "fix", respaced)
    source = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward(retain_graph=True)\n"
    outcome = fix_source(source)
    assert outcome.source == source and not outcome.applied
    assert [f.code for f in outcome.remaining] == ["TLK201"]


# --------------------------------------------------------------------------- properties over every example


def _corpus() -> list[object]:
    cases: list[object] = [
        pytest.param(example.code, id=f"{rule.code}-{index}")
        for rule in ALL_RULES
        for index, example in enumerate(rule.flagged)
    ]
    cases += [pytest.param(rule.demo.program(rule.demo.leaky), id=f"{rule.code}-demo") for rule in ALL_RULES if rule.demo]
    for path in [ROOT / "examples" / "leaky_training.py", *sorted((ROOT / "tests" / "realistic").glob("*.py"))]:
        cases.append(pytest.param(path.read_text(), id=path.stem))
    return cases


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("source", _corpus())
def test_fixing_parses_is_idempotent_and_leaves_nothing_fixable(source: str, unsafe: bool) -> None:
    outcome = fix_source(source, unsafe=unsafe)
    ast.parse(outcome.source)
    # Idempotent: a second run changes nothing and fixes nothing.
    again = fix_source(outcome.source, unsafe=unsafe)
    assert again.source == outcome.source and not again.applied
    # The fixed rules report nothing where they fixed, and what remains has no fix to apply.
    left = [f.fix for f in outcome.remaining if f.fix is not None]
    assert [fix for fix in left if unsafe or fix.safety == "safe"] == []
    # Only lines a fix touched changed: the rest of the file is byte for byte the same.
    before, after = source.splitlines(), outcome.source.splitlines()
    assert len([line for line in before if line not in after]) <= outcome.fixed * 2


_SNIPPETS = [example.code for rule in ALL_RULES for example in (*rule.flagged, *rule.clean)]
_MUTATIONS = (
    lambda lines, r: lines[: r.randrange(len(lines) + 1)],
    lambda lines, r: [line for i, line in enumerate(lines) if i != r.randrange(len(lines))],
    lambda lines, r: [line.replace("loss", r.choice(["(loss, out)", "{'l': loss}", "[*loss]", "loss[0]", "-loss", "loss @ w", "self.loss"])) for line in lines],
    lambda lines, r: [line.replace("model(", r.choice(["self(", "model.forward(", "f(", "torch.sigmoid("])) for line in lines],
    lambda lines, r: ["def step(self, batch):", '    """Doc."""'] + ["    " + line for line in lines] + ["    return loss"],
    lambda lines, r: [line.replace("for ", "async for ", 1) if r.random() < 0.5 else line for line in lines],
    lambda lines, r: [line.replace("+=", r.choice(["-=", "*=", "=", "|="])) for line in lines],
    lambda lines, r: [line.replace("retain_graph=True", r.choice(["retain_graph=True, create_graph=True", "*a, retain_graph=True", "retain_graph=True,\n    )  #"])) for line in lines],
    lambda lines, r: [line.replace("    ", "\t") for line in lines],
    lambda lines, r: [line + r.choice(["  # note", " ;", "  # noqa"]) if line.strip() else line for line in lines],
)


@settings(max_examples=int(os.environ.get("TORCHLEAK_FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    snippet=st.sampled_from(_SNIPPETS),
    mutations=st.lists(st.integers(min_value=0, max_value=len(_MUTATIONS) - 1), min_size=1, max_size=3),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_fixing_mutated_scripts_never_raises_never_breaks_and_is_idempotent(snippet: str, mutations: list[int], seed: int) -> None:
    rng = random.Random(seed)
    lines = snippet.splitlines() or ["pass"]
    for index in mutations:
        lines = _MUTATIONS[index](lines, rng) or ["pass"]
    source = "\n".join(lines) + "\n"
    try:
        ast.parse(source)
    except SyntaxError:
        assert fix_source(source, unsafe=True).source == source
        return
    outcome = fix_source(source, unsafe=True)
    ast.parse(outcome.source)
    assert fix_source(outcome.source, unsafe=True).source == outcome.source


@pytest.mark.parametrize("source", _corpus())
def test_offered_text_edits_do_what_the_fix_does(source: str) -> None:
    """Each offered fix, applied alone as text, is what libcst makes of the rule's edits on the
    whole module (the slow way the edits used to be printed), and it removes its finding."""
    import libcst as cst_

    from torchleak.analysis.flow import analyse
    from torchleak.rules import RULES_BY_CODE

    findings = check_source(source, fixes=True).findings
    offers = offered_fixes(findings)
    module = cst_.parse_module(source)
    facts = analyse(module)
    expected = {}
    for code in {finding.code for finding in findings}:
        rule = RULES_BY_CODE[code]()
        for report in rule.check(facts):
            fix = rule.fix(report, facts)
            if fix is not None:
                expected.setdefault(code, []).append(_print_with_libcst(module, fix.edits))
    for (line, column, code), offer in offers.items():
        assert _apply_text(source, offer.edits) in expected.get(code, []), (line, column, code, offer)


def _print_with_libcst(module: cst.Module, edits: tuple[object, ...]) -> str:
    """The module with libcst edits applied by a transformer (reference for the text edits)."""
    from torchleak.rule import Edit

    class Applier(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> object:  # type: ignore[override]
            for edit in edits:
                assert isinstance(edit, Edit)
                if edit.node is not original:
                    continue
                result = edit.replacement if edit.replacement is not None else updated
                if not edit.before and not edit.after:
                    return result
                if isinstance(original, cst.BaseSmallStatement):
                    return cst.FlattenSentinel([*edit.before, result, *edit.after])
                return cst.FlattenSentinel(
                    [*(cst.SimpleStatementLine([s]) for s in edit.before), result, *(cst.SimpleStatementLine([s]) for s in edit.after)]
                )
            return updated

    return module.visit(Applier()).code


def _apply_text(source: str, edits: tuple[object, ...]) -> str:
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    result = source
    for edit in sorted(edits, key=lambda e: (e.start_line, e.start_column), reverse=True):  # type: ignore[attr-defined]
        start, end = offset(edit.start_line, edit.start_column), offset(edit.end_line, edit.end_column)  # type: ignore[attr-defined]
        result = result[:start] + edit.content + result[end:]  # type: ignore[attr-defined]
    return result


def test_text_edit_of_an_inserted_line_is_a_whole_line() -> None:
    old = "for x in loader:\n    out, h = m(x, h)\n"
    new = "for x in loader:\n    h = h.detach()\n    out, h = m(x, h)\n"
    edit = text_edit(old, new)
    assert edit is not None
    assert (edit.start_line, edit.start_column, edit.end_line, edit.end_column) == (2, 1, 2, 1)
    assert edit.content == "    h = h.detach()\n"
    edit = text_edit("total += loss\n", "total += loss.item()\n")
    assert edit is not None and (edit.start_line, edit.start_column, edit.end_column, edit.content) == (1, 14, 14, ".item()")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_declares_its_fix_safety_and_why(rule: type[Rule]) -> None:
    assert rule.fix_safety in ("safe", "unsafe", "none")
    assert rule.fix_rationale.strip(), f"{rule.code} says nothing about its fix"
    outcomes = [fix_source(example.code, select=(rule.code,), unsafe=True) for example in rule.flagged]
    applied = [fix for outcome in outcomes for _, fix in outcome.applied]
    if rule.fix_safety == "none":
        assert not applied
    else:
        assert applied, f"none of {rule.code}'s examples is fixed"
        # No fix is better than its rule says its fixes can be.
        order = {"unsafe": 0, "safe": 1}
        assert all(order[fix.safety] <= order[rule.fix_safety] for fix in applied)


# --------------------------------------------------------------------------- the command line


LEAKY = dedent(
    """\
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward(retain_graph=True)
        total += loss
    for x, _ in val_loader:
        history.preds.append(model(x).pow(2))
    """
)


def test_cli_fix_writes_safe_fixes_and_counts(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    result = run_tool("torchleak", "--fix", str(path))
    assert result.returncode == 1, result.stderr  # the TLK102 has only an unsafe fix
    assert path.read_text() == LEAKY.replace("(retain_graph=True)", "()").replace("total += loss", "total += loss.item()")
    assert result.stdout.splitlines()[-1] == "Fixed 2 findings (1 remaining; 1 more fixable with --unsafe-fixes)."
    assert re.search(r"train\.py:7:\d+: TLK102", result.stdout)
    again = run_tool("torchleak", "--fix", str(path))
    assert again.stdout.splitlines()[-1] == "Fixed 0 findings (1 remaining; 1 more fixable with --unsafe-fixes)."
    unsafe = run_tool("torchleak", "--fix", "--unsafe-fixes", str(path))
    assert unsafe.returncode == 0, unsafe.stdout
    assert unsafe.stdout == "Fixed 1 finding (0 remaining).\n"
    assert "history.preds.append(model(x).pow(2).detach())" in path.read_text()


def test_cli_diff_prints_and_does_not_write(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    result = run_tool("torchleak", "--diff", str(path))
    assert result.returncode == 1
    assert path.read_text() == LEAKY
    assert f"--- {path}\n+++ {path}\n" in result.stdout
    assert "\n-    loss.backward(retain_graph=True)\n" in result.stdout and "\n+    loss.backward()\n" in result.stdout
    assert "Would fix 2 findings in 1 file" in result.stderr
    clean = tmp_path / "clean.py"
    clean.write_text("print('hello')\n")
    assert run_tool("torchleak", "--diff", str(clean)).returncode == 0


def test_cli_fix_leaves_syntax_errors_and_keeps_encoding(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"for x in loader:\n    loss.backward(retain_graph=True\n")
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + LEAKY.replace("\n", "\r\n").encode())
    result = run_tool("torchleak", "--fix", str(broken), str(bom))
    assert result.returncode == 1
    assert broken.read_bytes() == b"for x in loader:\n    loss.backward(retain_graph=True\n"
    assert "TLK999 syntax error" in result.stdout and "left unchanged" in result.stdout
    fixed_bytes = bom.read_bytes()
    assert fixed_bytes.startswith(b"\xef\xbb\xbf") and b"\r\n" in fixed_bytes and b"\n" not in fixed_bytes.replace(b"\r\n", b"")
    assert b"total += loss.item()" in fixed_bytes


def test_cli_fix_stdin_writes_the_fixed_source_to_stdout() -> None:
    result = run_tool("torchleak", "--fix", "-", stdin=LEAKY)
    assert result.stdout.startswith("total = 0\n")
    assert "loss.backward()" in result.stdout
    assert "Fixed 2 findings" in result.stderr


def test_cli_json_offers_fixes(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    document = json.loads(run_tool("torchleak", "--format", "json", str(path)).stdout)
    fixes = {finding["code"]: finding.get("fix") for finding in document["findings"]}
    assert fixes["TLK201"] == {
        "safety": "safe",
        "description": "remove 'retain_graph=True'",
        "reason": "no backward follows it",
        "edits": [{"start": {"line": 4, "column": 19}, "end": {"line": 4, "column": 36}, "content": ""}],
    }
    assert fixes["TLK102"]["safety"] == "unsafe"
    sarif = json.loads(run_tool("torchleak", "--format", "sarif", str(path)).stdout)
    results = {result["ruleId"]: result for result in sarif["runs"][0]["results"]}
    replacement = results["TLK201"]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {
        "deletedRegion": {"startLine": 4, "startColumn": 19, "endLine": 4, "endColumn": 36},
        "insertedContent": {"text": ""},
    }


def test_no_rule_imports_another_rule_and_the_old_fix_module_is_gone() -> None:
    rules = ROOT / "src" / "torchleak" / "rules"
    for module in rules.glob("*.py"):
        if module.name == "__init__.py":
            continue
        tree = ast.parse(module.read_text())
        imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
        assert not [name for name in imported if name.startswith("torchleak.rules")], module.name
    assert not (ROOT / "src" / "torchleak" / "rewrite.py").exists()
