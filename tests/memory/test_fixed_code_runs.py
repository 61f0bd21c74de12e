"""Every fix torchleak offers, applied the way ``torchleak --fix`` (and ``--unsafe-fixes``)
applies it, and the fixed code run for several iterations under torch on CPU: a fix may change
behaviour (an unsafe one may), but it must never turn a loop that runs into one that raises.

The code comes from every rule's flagged examples (the rule pages show them), the bundled
``examples/leaky_training.py``, the shapes that crashed fixes before (an LSTM's ``(h, c)``
from ``init_hidden``, a state that starts as ``None`` or ``0``, ``out.unbind(0)``, a dict a
helper returns) and every rule's leak demo. A snippet names things it does not define
(``model``, ``loader``, ``criterion``): ``WORLD`` defines them, runnable and small, and
``HARNESSES`` adds what one example needs (its own loader, a driver that calls the class or
function it defines). The unfixed code runs too, as a control: it may raise only the error its
leak is known for, so that a harness mistake cannot pass for a working fix.

A fix applied to an example that has no harness fails the test: say how to run it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import warnings
from pathlib import Path
from textwrap import dedent
from typing import Any, Iterator, Optional

import pytest

torch = pytest.importorskip("torch")

from torchleak.fix import fix_source  # noqa: E402
from torchleak.rule import LeakDemo  # noqa: E402
from torchleak.rules import ALL_RULES  # noqa: E402
from torchleak.runtime import measure_demo  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: Errors an unfixed example may raise: the leaks that fail instead of growing.
KNOWN_LEAK_ERRORS = ("backward through the graph a second time", "modified by an inplace operation")

#: What the snippets use without defining it. ``model`` acts as a classifier on one input and
#: as a recurrent cell on (input, state), whatever the state's shape (None, a tensor, a tuple),
#: and as a Hugging Face model on keyword arguments.
WORLD = '''
import types
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x=None, *state, **batch):
        if batch:  # model(**batch): an output object with a loss
            logits = self.linear(batch["inputs"])
            return types.SimpleNamespace(logits=logits, loss=F.cross_entropy(logits, batch["labels"]))
        out = self.linear(x)
        return (out, self._next(state[0], out)) if state else out

    def _next(self, state, out):
        if state is None:
            return out.mean().reshape(1)
        if isinstance(state, tuple):
            return tuple(self._next(part, out) for part in state)
        return 0.5 * state + out.mean()


model = net = Model()
optimizer = opt = meta_optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
loader = train_loader = val_loader = [(torch.randn(4, 8), torch.randint(0, 8, (4,))) for _ in range(3)]
test_set = [torch.randn(4, 16) for _ in range(3)]
history, predictions = [], []
step = 0
'''


class LightningModule(torch.nn.Module):
    """Enough of Lightning's module for a ``training_step`` to run: a forward and manual_backward."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)

    def forward(self, x: Any) -> Any:
        return self.layer(x)

    def manual_backward(self, loss: Any) -> None:
        loss.backward()


@dataclasses.dataclass(frozen=True)
class Harness:
    """What one snippet needs beyond ``WORLD``: ``setup`` runs before it, ``drive`` after it
    (to call what it defines, several times)."""

    setup: str = ""
    drive: str = ""
    #: (old, new): text replaced in the snippet, fixed or not, where it is not runnable as written.
    replace: tuple[tuple[str, str], ...] = ()


TENSOR_LOADER = Harness("loader = val_loader = [torch.randn(4, 8) for _ in range(3)]")
DRIVE_TRAINING_STEP = """
lit = LitModel()
lit.running_loss = 0.0
lit.training_step_outputs = []
for index, batch in enumerate(loader):
    loss = lit.training_step(batch, index)
    if loss is not None:  # Lightning backwards what training_step returns
        loss.backward()
"""

#: Runnable versions of the rules' flagged examples, by the example's note.
HARNESSES: dict[str, Harness] = {
    "a method that runs the policy and keeps what it computes: reported at its store, where the fix goes": Harness(
        """
class Env:
    def step(self, action):
        return torch.randn(4), 0.0

env, obs = Env(), torch.randn(4)
""",
        drive="print(agent.update(None).shape)",
        replace=(("range(1000)", "range(5)"),),
    ),
    "a helper called once per batch whose later backward (on detached fakes) does not reuse the graph": Harness(
        "criterion = nn.BCEWithLogitsLoss()",
        replace=(
            (
                "gan = GAN()",
                "gan = GAN(); gan.net_G, gan.net_D = nn.Linear(8, 8), nn.Linear(8, 1); "
                "gan.real_label, gan.fake_label = torch.ones(4, 1), torch.zeros(4, 1)",
            ),
        ),
    ),
    "the canonical case: a training loop summing the loss tensor": Harness(),
    "a per-batch helper's backward, and a module of the file that carries a context vector in its "
    "forward (the trainer does not name the model's class)": Harness("loader = [torch.randn(4, 16) for _ in range(3)]"),
    "written out as an assignment, with arithmetic around the loss": Harness(),
    "a moving average of the loss for the progress bar: each value is computed from the last "
    "(a plain running total, total = total + loss, is TLK101)": Harness(
        "loader = [(torch.randn(4, 8), torch.randn(4, 8)) for _ in range(3)]"
    ),
    "an evaluation loop without torch.no_grad(): every batch's activations stay alive": Harness(
        drive="for epoch in range(2):\n    print(float(evaluate(model, val_loader, criterion)))"
    ),
    "a dict slot as the accumulator": Harness(
        'loader = [{"inputs": torch.randn(4, 8), "labels": torch.randint(0, 8, (4,))} for _ in range(3)]'
    ),
    "an attribute as the accumulator": Harness(
        drive="""
trainer = Trainer()
trainer.model, trainer.criterion, trainer.optimizer, trainer.epoch_loss = model, criterion, optimizer, 0.0
for epoch in range(2):
    trainer.fit(loader)
    print(float(trainer.epoch_loss))
"""
    ),
    "a Lightning training_step runs once per batch, so self.* outlives it": Harness(drive=DRIVE_TRAINING_STEP),
    "a Lightning training_step keeping its logits for on_train_epoch_end": Harness(drive=DRIVE_TRAINING_STEP),
    "a meter defined in the file whose update() adds its argument to self.sum: found at the call, through the method's summary": Harness(
        drive="print(losses.sum / losses.count)"
    ),
    "a training loop keeping outputs, and a dict literal holding the loss": Harness(),
    "a tracker method that appends its argument to self.history, called with the loss each step": Harness(),
    "an evaluation loop over an nn.Sequential without no_grad: the module is known from its constructor, whatever it is called": Harness(),
    "torch.cat onto an accumulator grows it by every batch's graph": TENSOR_LOADER,
    "an evaluation loop without no_grad keeps every batch's forward graph": Harness(),
    "an attribute list filled once per batch": Harness(
        drive="""
fitted = Model()
fitted.encoder, fitted.cache = nn.Linear(8, 8), []
fitted.fit([torch.randn(4, 8) for _ in range(3)])
"""
    ),
    "a dict keyed by the step grows by one graph per iteration": Harness(),
    "forward runs once per batch: activations kept on self pile up, one graph per call": Harness(
        drive="""
probe = Probe()
probe.head = nn.Linear(8, 2)
for x, _ in loader:
    probe(x).sum().backward()
"""
    ),
    "two classes with a method of the same name: each call resolves through its own class": Harness(
        TENSOR_LOADER.setup, replace=(("loss = head(x).sum()", "loss = head.score(x).sum()"),)  # Head has no forward
    ),
    "torch.autograd.backward behaves the same": Harness(
        drive="""
for x, y in loader:
    hessian_step(criterion(model(x), y), list(model.parameters()))
    model.zero_grad()
"""
    ),
    "a GRU hidden state carried across training steps": Harness(),
    "an LSTM's (h, c) tuple": Harness(
        """
lstm = nn.LSTM(8, 8)
criterion = nn.MSELoss()
h0, c0 = torch.zeros(1, 4, 8), torch.zeros(1, 4, 8)
loader = [(torch.randn(5, 4, 8), torch.randn(5, 4, 8)) for _ in range(3)]
"""
    ),
    "a moving average of features (not a loss) carries the graph into the next iteration": Harness(
        "loader = [torch.randn(4, 32) for _ in range(3)]"
    ),
    "a single backward per iteration": Harness(),
    "the second of two backward passes needs no retained graph": Harness(),
    "the classic: a GRU's hidden state carried over a stream, and retain_graph=True to silence the error; "
    "gradients accumulate and the optimizer steps after the stream (the measured demo below)": Harness(
        """
rnn = nn.GRU(32, 128, batch_first=True)
head = nn.Linear(128, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)
loader = [(torch.randn(32, 1, 32), torch.randn(32, 1)) for _ in range(3)]
"""
    ),
    "with optimizer.step() in the loop the second iteration's backward raises instead: the step "
    "modified in place the weights the retained graph saved": Harness(
        """
gru = nn.GRU(16, 64)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(gru.parameters(), lr=0.01)
loader = [(torch.randn(5, 32, 16), torch.randn(5, 32, 64)) for _ in range(3)]
"""
    ),
    "the state comes from before the loop": Harness("hidden = None"),
    "a gradient penalty logged without detach keeps its double-backward graph": Harness(),
    "create_graph=True whose result is never differentiated again": TENSOR_LOADER,
    "a gradient penalty computed from .grad": Harness(),
    "state kept in an attribute of a per-batch method": Harness(
        "LitTBPTT = None  # defined by the snippet",
        drive="""
class Runnable(LitTBPTT):
    def __init__(self):
        super().__init__()
        self.rnn, self.hidden = nn.GRU(8, 8), None
lit = Runnable()
for index, (x, _) in enumerate(loader):
    lit.training_step(x.unsqueeze(0), index).backward()
""",
    ),
    "a stateful module's forward: the state links every call's graph to the last": Harness(
        drive="""
class Runnable(StatefulLSTM):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 8)
stateful = Runnable()
for x, _ in loader:
    stateful(x.unsqueeze(0)).sum().backward()
"""
    ),
    "an evaluation loop without no_grad: the chain grows every batch": Harness(),
}


def _rule_examples() -> Iterator[Any]:
    for rule in ALL_RULES:
        for index, example in enumerate(rule.flagged):
            yield pytest.param(example.code, example.note, id=f"{rule.code}-{index}")


def _bundled_example() -> Iterator[Any]:
    """``examples/leaky_training.py``, one case per function it defines (each is called)."""
    source = (ROOT / "examples" / "leaky_training.py").read_text()
    for line in source.splitlines():
        if line.startswith("def "):
            name = line[4:].split("(")[0]
            yield pytest.param(source, Harness(drive=f"{name}()"), id=f"leaky_training-{name}")


#: Shapes whose fix once raised on its first iterations (kept here, runnable as written).
CRASHERS = {
    "lstm_state_from_init_hidden": """
        import torch
        import torch.nn as nn

        class LanguageModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(8, 8)

            def init_hidden(self, bsz):
                return (torch.zeros(1, bsz, 8), torch.zeros(1, bsz, 8))

            def forward(self, x, hidden):
                return self.lstm(x, hidden)

        lm = LanguageModel()
        lm_optimizer = torch.optim.SGD(lm.parameters(), lr=0.01)
        hidden = lm.init_hidden(4)
        for x, y in loader:
            out, hidden = lm(x.unsqueeze(0), hidden)
            loss = out.pow(2).mean()
            loss.backward()
            lm_optimizer.step()
        """,
    "state_starting_as_none_in_a_module": """
        import torch.nn as nn

        class Stateful(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(8, 8)
                self.hidden = None

            def fit(self, loader):
                for x, y in loader:
                    out, self.hidden = self.rnn(x.unsqueeze(0), self.hidden)
                    out.pow(2).mean().backward()

        Stateful().fit(loader)
        """,
    "state_starting_as_none_from_an_unknown_model": """
        state = None
        for x, y in loader:
            out, state = model(x, state)
            criterion(out, y).backward()
        """,
    "moving_average_starting_as_zero": """
        import torch.nn as nn
        encoder = nn.Linear(8, 4)
        center = 0
        for x, y in loader:
            feats = encoder(x)
            loss = (feats - center).pow(2).mean()
            loss.backward()
            center = 0.9 * center + 0.1 * feats.mean(0)
        """,
    "unbind_extended_into_a_list": """
        import torch.nn as nn
        layer = nn.Linear(8, 3)
        outs = []
        for x, y in loader:
            out = layer(x)
            outs.extend(out.unbind(0))
        """,
    "a_dict_returned_by_a_helper": """
        def compute(x, y):
            loss = criterion(model(x), y)
            return {"loss": loss, "n": 1}

        kept = []
        for x, y in loader:
            result = compute(x, y)
            result["loss"].backward()
            optimizer.step()
            kept.append(result)
        """,
    "a_repeated_list_extended_into_a_list": """
        import torch
        model.eval()
        outputs = []
        for x, y in loader:
            out = torch.sigmoid(model(x))
            outputs.extend([out] * 2)
        print(torch.cat(outputs).shape)
        """,
    "total_summed_with_sum": """
        total_loss = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            total_loss = sum([total_loss, loss])
            loss.backward()
            optimizer.step()
        print(float(total_loss))
        """,
}


def _cases() -> Iterator[Any]:
    yield from _rule_examples()
    yield from _bundled_example()
    for name, source in CRASHERS.items():
        yield pytest.param(dedent(source), Harness(), id=name)


def _run(source: str, harness: Harness) -> Optional[Exception]:
    """Run ``WORLD``, the harness's setup, ``source`` and the driver, in one namespace: what
    the snippet or its driver raised, if anything."""
    lightning = types.ModuleType("lightning")
    lightning.LightningModule = LightningModule  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"__name__": "__fixed_example__", "LightningModule": LightningModule}
    saved = sys.modules.get("lightning")
    sys.modules["lightning"] = lightning
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # backward(create_graph=True) warns about its cycle
            exec(compile(WORLD, "<world>", "exec"), namespace)
            exec(compile(dedent(harness.setup), "<setup>", "exec"), namespace)
            for old, new in harness.replace:
                source = source.replace(old, new)
            try:
                exec(compile(dedent(source), "<snippet>", "exec"), namespace)
                exec(compile(dedent(harness.drive), "<drive>", "exec"), namespace)
            except Exception as error:  # noqa: BLE001 - the caller judges it
                return error
            return None
    finally:
        if saved is None:
            del sys.modules["lightning"]
        else:
            sys.modules["lightning"] = saved


def _harness_for(note_or_harness: Any) -> Optional[Harness]:
    if isinstance(note_or_harness, Harness):
        return note_or_harness
    return HARNESSES.get(note_or_harness)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize(("source", "how"), list(_cases()))
def test_fixed_code_runs(source: str, how: Any, unsafe: bool) -> None:
    outcome = fix_source(source, unsafe=unsafe)
    if not outcome.applied:
        return  # nothing was changed: nothing new to run
    harness = _harness_for(how)
    assert harness is not None, f"a fix was applied to an example with no harness ({how!r}): add one to HARNESSES"
    # The control: the unfixed code runs, or raises only what its leak is known for.
    before = _run(source, harness)
    assert before is None or (
        isinstance(before, RuntimeError) and any(known in str(before) for known in KNOWN_LEAK_ERRORS)
    ), f"the harness does not run the unfixed code: {before!r}"
    after = _run(outcome.source, harness)
    if after is None:
        return
    # A fix may leave a leak it did not address raising as before; it must never add an error,
    # and code the linter has nothing more to say about must run.
    same = before is not None and type(after) is type(before) and str(after) == str(before)
    if not same or not outcome.remaining:
        fixes = "\n".join(f"{code}: {fix.description}" for code, fix in outcome.applied)
        pytest.fail(f"the fixed code raises {after!r}\nfixes:\n{fixes}\nfixed code:\n{outcome.source}")


# --------------------------------------------------------------------------- measured demos

LOOP = "\nfor batch in loader:\n"
DEMOS = [pytest.param(rule.demo, id=rule.code) for rule in ALL_RULES if rule.demo is not None]


def _fixed_demo(demo: LeakDemo, unsafe: bool) -> tuple[LeakDemo, str, bool]:
    """The demo with its leaky step replaced by what ``--fix`` makes of it, the fixed program,
    and whether the linter has anything left to say about it."""
    outcome = fix_source(demo.program(demo.leaky), unsafe=unsafe)
    setup, loop, body = outcome.source.partition(LOOP)
    assert loop, outcome.source
    step = "\n".join(line[4:] for line in body.splitlines())
    return dataclasses.replace(demo, setup=setup, leaky=step), outcome.source, not outcome.remaining


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("demo", DEMOS)
def test_a_fixed_demo_runs_and_what_it_fixes_stops_growing(demo: LeakDemo, unsafe: bool) -> None:
    fixed, program, clean = _fixed_demo(demo, unsafe)
    growth = measure_demo(fixed, "leaky", iters=8, device="cpu", heap=demo.meter == "heap")  # raises StepRaised on failure
    if clean and demo.meter in ("tensor", "heap"):
        # Tensor memory is exact; 512 B per iteration is what a fixed loop keeps on purpose.
        assert growth.bytes_per_iter <= 512, f"{growth.summary()}\n{program}"
        if growth.heap_bytes_per_iter is not None:
            assert growth.heap_bytes_per_iter <= 512, f"{growth.summary()}\n{program}"


def test_tlk202_with_a_step_in_the_loop_raises_on_the_second_iteration_as_its_page_says() -> None:
    """The page shows both: without a step in the loop the graph grows (the measured demo), with
    ``optimizer.step()`` in it the second backward raises."""
    from torchleak.rules import RULES_BY_CODE

    rule = RULES_BY_CODE["TLK202"]
    stepping = next(example for example in rule.flagged if "raises instead" in example.note)
    harness = HARNESSES[stepping.note]
    # One iteration runs; two raise.
    assert _run(stepping.code, dataclasses.replace(harness, setup=harness.setup + "\nloader = loader[:1]")) is None
    error = _run(stepping.code, harness)
    assert isinstance(error, RuntimeError) and "modified by an inplace operation" in str(error), error
    streaming = rule.flagged[0]
    assert _run(streaming.code, HARNESSES[streaming.note]) is None
    # The message says which of the two happens.
    from torchleak.engine import lint_source

    said = {example.code: [f.message for f in lint_source(example.code) if f.code == "TLK202"] for example in (stepping, streaming)}
    assert "the next iteration's backward raises" in said[stepping.code][0]
    assert "grow every iteration" in said[streaming.code][0]
