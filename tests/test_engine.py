"""The engine: selection, noqa, the pre-filter, and its promise never to raise."""

from __future__ import annotations

import ast
import gc
from pathlib import Path
from textwrap import dedent

import pytest

from torchleak.engine import MAX_NESTING, check_source, is_selected, lint_source
from torchleak.rules import ALL_RULES

LEAKY = dedent(
    """
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward(retain_graph=True)
        total += loss
    """
)


def test_select_and_ignore_follow_flake8_prefix_rules() -> None:
    assert is_selected("TLK101", ("TLK",), ())
    assert not is_selected("TLK101", ("TLK",), ("TLK1",))
    assert is_selected("TLK101", ("TLK101",), ("TLK1",))  # the longer prefix wins
    assert not is_selected("TLK900", ("TLK1", "TLK2", "TLK3"), ())


def test_findings_are_sorted_and_filtered_by_selection() -> None:
    assert [f.code for f in lint_source(LEAKY)] == ["TLK201", "TLK101"]
    assert [f.code for f in lint_source(LEAKY, ignore=("TLK2",))] == ["TLK101"]
    assert [f.code for f in lint_source(LEAKY, select=("TLK201",))] == ["TLK201"]
    assert lint_source(LEAKY, select=("E",)) == []


def test_noqa_is_applied_only_when_asked() -> None:
    source = LEAKY.replace("total += loss", "total += loss  # noqa: TLK101").replace(
        "retain_graph=True)", "retain_graph=True)  # noqa"
    )
    assert check_source(source, apply_noqa=True).findings == []
    assert len(check_source(source).findings) == 2
    other = LEAKY.replace("total += loss", "total += loss  # noqa: E501")
    assert [f.code for f in check_source(other, apply_noqa=True).findings] == ["TLK201", "TLK101"]


def test_the_prefilter_never_drops_a_file_with_findings() -> None:
    for rule in ALL_RULES:
        for example in rule.flagged:
            tree = ast.parse(example.code)
            assert check_source(example.code, tree=tree).findings, (rule.code, example.note)


def test_irrelevant_files_are_not_parsed_by_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("libcst should not be reached")

    monkeypatch.setattr(libcst, "parse_module", fail)
    assert check_source("import torch\nx = torch.ones(3)\nprint(x.sum())\n").findings == []
    assert check_source("def f(xs):\n    return [x * 2 for x in xs]\n").skipped is None


def test_deep_nesting_is_skipped_with_a_notice_not_a_crash() -> None:
    deep = "for x in loader:\n    y = " + "f(" * 190 + "1" + ")" * 190 + "\n"
    result = check_source(deep, select=("TLK", "TLK900"))
    assert result.skipped and str(MAX_NESTING) in result.skipped
    assert [f.code for f in result.findings] == ["TLK900"]
    # The notice is opt-in: neither the default nor a bare "TLK" prefix turns it on.
    assert check_source(deep).findings == []
    assert check_source(deep, select=("TLK",)).findings == []


def test_nesting_just_under_the_limit_is_analysed() -> None:
    nested = "total = 0\nfor x in loader:\n    loss = criterion(model(x), " + "g(" * 80 + "1" + ")" * 80 + ")\n    loss.backward()\n    total += loss\n"
    assert [f.code for f in lint_source(nested)] == ["TLK101"]


def test_syntax_errors_are_returned_not_raised() -> None:
    result = check_source("for x in loader:\n    total += (\n")
    assert result.syntax_error is not None
    assert result.findings == []


def test_internal_errors_become_a_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    import torchleak.analysis.flow as flow

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(flow, "analyse", broken)
    result = check_source(LEAKY, select=("TLK", "TLK900"))
    assert result.skipped is not None and "internal error KeyError" in result.skipped
    assert [f.code for f in result.findings] == ["TLK900"]


def test_aliases_and_no_grad_imported_by_name() -> None:
    source = dedent(
        """
        from torch import no_grad as ng
        import torch.nn.functional as fn
        total = 0
        with ng():
            for x, y in loader:
                total += fn.cross_entropy(model(x), y)
        for x, y in loader:
            total += fn.cross_entropy(model(x), y)
        """
    )
    assert [(f.line, f.code) for f in lint_source(source)] == [(9, "TLK101")]


def test_set_grad_enabled_false_statement_switches_off_the_rest() -> None:
    source = dedent(
        """
        import torch
        def evaluate(model, loader):
            torch.set_grad_enabled(False)
            outs = []
            for x in loader:
                outs.append(model(x))
            return outs
        """
    )
    assert lint_source(source) == []


def test_configured_names_extend_the_vocabulary() -> None:
    from torchleak.analysis.settings import Settings

    source = "hist = []\nfor x in loader:\n    hist.append(mlp(x))\n"
    assert lint_source(source) == []
    assert [f.code for f in lint_source(source, settings=Settings(model_names=frozenset({"mlp"})))] == ["TLK102"]


def test_only_relevant_statements_reach_libcst_and_positions_hold() -> None:
    from torchleak.analysis.prefilter import iter_kept_lines, plan

    source = dedent(
        '''\
        import torch
        class Big(nn.Module):
            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x
        def compute(model, x):
            return model(x)
        def unrelated():
            return [i * 2 for i in range(10)]
        history = []
        for x, y in loader:
            out = compute(model, x)
            out.sum().backward()
            history.append(out)
        '''
    )
    scope = plan(source, ast.parse(source), {"training_step"}, MAX_NESTING)
    kept = set(iter_kept_lines(scope))
    # A file with anything relevant reaches libcst whole: summaries flow from callers to callees
    # and back, so no part of it can be proved irrelevant (blank lines are not counted).
    assert kept == set(range(1, 16))
    assert [(f.line, f.column, f.code) for f in lint_source(source)] == [(15, 4, "TLK102")]


def test_a_function_called_under_no_grad_anywhere_in_the_file_is_no_grad() -> None:
    source = dedent(
        '''\
        import torch
        def predict(model, loader):
            preds = []
            for x in loader:
                preds.append(model(x))
            return preds
        def main():
            model.eval()
            with torch.no_grad():
                return predict(model, test_loader)
        '''
    )
    assert lint_source(source) == []
    assert [f.code for f in lint_source(source.replace("with torch.no_grad():", "if True:"))] == ["TLK102"]


def test_crlf_and_form_feed_keep_their_line_numbers_when_masked() -> None:
    source = "import torch\r\n\x0cdef unrelated():\r\n    return 1\r\nhist = []\r\nfor x in loader:\r\n    hist.append(model(x))\r\n"
    assert [(f.line, f.code) for f in lint_source(source)] == [(6, "TLK102")]


def test_one_line_bodies_are_analysed() -> None:
    line = "for x, y in loader: loss = criterion(model(x), y); loss.backward(); total += loss"
    source = f"total = 0\n{line}\n"
    assert [(f.line, f.column, f.code) for f in lint_source(source)] == [(2, line.index("total"), "TLK101")]
    carried = "h = None\nfor x in loader: out, h = model(x, h)\n"
    assert [f.code for f in lint_source(carried)] == ["TLK103"]


def test_a_loop_that_only_calls_autograd_grad_is_a_training_loop() -> None:
    # The whole-file pre-check and the per-statement one are one test: this used to be dropped.
    source = dedent(
        """
        import torch
        saliency = []
        for x in inputs:
            x.requires_grad_(True)
            g = torch.autograd.grad(model(x).sum(), x)[0]
            saliency.append(model(x))
        """
    )
    assert [(f.line, f.code) for f in lint_source(source)] == [(7, "TLK102")]


def test_a_callee_of_a_no_grad_decorated_function_is_no_grad() -> None:
    """Found on the library corpus (torchmetrics, speecht5): the helper runs only under the
    decorated caller, so its outputs carry no graph."""
    source = dedent(
        '''\
        import torch
        def collect(model, xs):
            outs = []
            for x in xs:
                outs.append(model(x))
            return torch.cat(outs)
        @torch.no_grad()
        def predict(model, xs):
            return collect(model, xs)
        '''
    )
    assert lint_source(source) == []
    assert [f.code for f in lint_source(source.replace("@torch.no_grad()\n", ""))] == ["TLK102"]


def test_a_layer_loop_in_a_forward_whose_base_class_is_imported_is_one_forward_pass() -> None:
    """Found on the library corpus (pe_audio, pe_video): a class defining forward is a module."""
    source = dedent(
        '''\
        from .base import BaseEncoder
        class Encoder(BaseEncoder):
            def forward(self, x, mask=None):
                h = self.embedder(x)
                for layer in self.layers[: self.config.num_hidden_layers]:
                    h = layer(h, mask)
                return h
        '''
    )
    assert lint_source(source) == []


def test_analysis_leaves_no_reference_cycles() -> None:
    """The engine pauses the cyclic collector while it lints; what the analysis builds must then
    be freed by reference counting (FileFacts.release), or the tree waits for the collector: on
    the 5,000-line training file that was 195,501 objects and about 0.15 s after every file."""
    examples = Path(__file__).parent
    sources = [path.read_text(encoding="utf-8") for path in sorted([*examples.glob("realistic/*.py"), *examples.glob("zoo/*.py")])]
    for source in sources[:3]:
        check_source(source, fixes=True)  # first-use caches (compiled patterns, per-class tables)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for source in sources:
            check_source(source, fixes=True)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_advice_for_a_list_handed_to_a_pool_detaches_its_tensors_not_the_list() -> None:
    # (a CycleGAN image pool given [fake_A, fake_B]: "[fake_A, fake_B].detach()" would raise)
    source = dedent("""
        import torch
        import torch.nn as nn

        class Pool:
            def __init__(self):
                self.images = []

            def __call__(self, images):
                self.images.append(images)
                return images

        def train(gen_a, gen_b, pool, loader, optimizer):
            for a, b in loader:
                fake_a, fake_b = gen_a(b), gen_b(a)
                fake_a, fake_b = pool([fake_a, fake_b])
                loss = fake_a.mean() + fake_b.mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        train(nn.Linear(2, 2), nn.Linear(2, 2), Pool(), [], None)
    """)
    messages = [finding.message for finding in lint_source(source)]
    assert messages and all("].detach()" not in message for message in messages)
    # (the pool's only call: reported at its store, where the parameter holds the list)
    assert any("of each tensor in images here" in message for message in messages)
    assert all("images.detach()" not in message for message in messages)
