"""TLK102: a graph-attached value stored in a container or attribute that outlives the iteration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from torchleak.analysis.facts import FileFacts, Store
from torchleak.analysis.queries import held_across_iterations, keeps_several, statement_text
from torchleak.edits import detach_fix
from torchleak.rule import Clean, Fix, FixSafety, Flagged, LeakDemo, Report, Rule


class HeldAcrossIterations(Rule):
    """## What it does
    Flags `history.append(out)`, `self.cache.append(h)`, `outputs[step] = out`,
    `preds += [out]` and dict or tuple literals holding such tensors, inside a loop over
    batches, when the stored value is still attached to the autograd graph and the container
    lives from one iteration to the next.

    ## Why is this bad?
    A stored tensor keeps its `grad_fn`, and through it the graph that produced it. In an
    evaluation loop that runs the model without `torch.no_grad()` this is the largest leak of
    all: every batch's whole forward graph, saved activations included, stays alive until the
    list is dropped. In a training loop `backward()` has freed the saved activations, but the
    stored tensor and its chain of autograd nodes remain, one set per iteration.

    ## Known problems
    Values that come back from functions defined in other modules are not known to be
    attached and are not reported. A list that is later passed to `backward()` (for example
    `torch.stack(losses).mean().backward()`) is intended and not reported.
    """

    code: ClassVar[str] = "TLK102"
    name: ClassVar[str] = "held-across-iterations"
    message: ClassVar[str] = "'{statement}' keeps the autograd graph of {value} alive across iterations{through}; {fix}"
    fix_safety: ClassVar[FixSafety] = "safe"
    fix_rationale: ClassVar[str] = (
        "Stores `.detach()` of the value; inside a dict, tuple or list literal, of each attached value in "
        "it, never of the literal (`{...}.detach()` raises at run time). Safe when every value detached is "
        "known to be a tensor (a name `.backward()` is called on, a `torch` function's result, a loss) and "
        "the container never leaves the function; unsafe for a model's output (a model may return a tuple "
        "or a dict) or a container that is returned, stored or an attribute (a caller could backward "
        "through it). In an evaluation loop the better fix is `with torch.no_grad():` around the loop, "
        "which saves the activations too; that one is left to you."
    )
    fixed_example: ClassVar[str] = """
        import torch
        preds = []
        model.eval()
        with torch.no_grad():
            for x, _ in val_loader:
                preds.append(model(x))
    """
    flagged: ClassVar[tuple[Flagged, ...]] = (
        Flagged(
            """
            preds = []
            model.eval()
            for x, _ in val_loader:
                preds.append(model(x))  # TLK102
            """,
            "an evaluation loop without no_grad keeps every batch's forward graph",
        ),
        Flagged(
            """
            history = []
            for x, y in loader:
                out = model(x)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
                history.append(out)  # TLK102
                history.append({"loss": loss, "step": 1})  # TLK102
            """,
            "a training loop keeping outputs, and a dict literal holding the loss",
        ),
        Flagged(
            """
            class Model(nn.Module):
                def fit(self, loader):
                    for x in loader:
                        h = self.encoder(x)
                        self.cache.append(h)  # TLK102
                        loss = h.pow(2).mean()
                        loss.backward()
            """,
            "an attribute list filled once per batch",
        ),
        Flagged(
            """
            outputs = {}
            for step, (x, y) in enumerate(loader):
                out = model(x)
                criterion(out, y).backward()
                optimizer.step()
                outputs[step] = out  # TLK102
            """,
            "a dict keyed by the step grows by one graph per iteration",
        ),
        Flagged(
            """
            class LitModel(LightningModule):
                def training_step(self, batch, batch_idx):
                    x, y = batch
                    logits = self(x)
                    loss = F.cross_entropy(logits, y)
                    self.training_step_outputs.append(logits)  # TLK102
                    return loss
            """,
            "a Lightning training_step keeping its logits for on_train_epoch_end",
        ),
        Flagged(
            """
            class Probe(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = nn.Linear(8, 8)
                    self.activations = []

                def forward(self, x):
                    h = self.encoder(x)
                    self.activations.append(h)  # TLK102
                    return self.head(h)
            """,
            "forward runs once per batch: activations kept on self pile up, one graph per call",
        ),
        Flagged(
            """
            class Tracker:
                def __init__(self):
                    self.history = []

                def log(self, value):
                    self.history.append(value)


            tracker = Tracker()
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                tracker.log(loss)  # TLK102
            """,
            'a tracker method that appends its argument to self.history, called with the loss each step',
        ),
        Flagged(
            """
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
            outputs = []
            for features in test_set:
                outputs.append(net(features))  # TLK102
            """,
            'an evaluation loop over an nn.Sequential without no_grad: the module is known from its constructor, whatever it is called',
        ),
        Flagged(
            """
            import torch

            all_probs = torch.empty(0)
            for x in val_loader:
                probs = model(x).softmax(-1)
                all_probs = torch.cat([all_probs, probs])  # TLK102
            """,
            "torch.cat onto an accumulator grows it by every batch's graph",
        ),
        Flagged(
            """
            import torch.nn as nn


            class Scorer:
                def score(self, out):
                    return out.mean().item()


            class Head(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 1)

                def score(self, x):
                    return self.fc(x)


            scorer, head = Scorer(), Head()
            scores, outputs = [], []
            for x in loader:
                loss = head(x).sum()
                loss.backward()
                scores.append(scorer.score(x))
                outputs.append(head.score(x))  # TLK102
            """,
            'two classes with a method of the same name: each call resolves through its own class',
        ),
        Flagged(
            """
            import torch.nn as nn
            from torch.distributions import Categorical

            class Agent:
                def __init__(self):
                    self.policy = nn.Linear(4, 2)
                    self.log_probs = []

                def act(self, obs):
                    dist = Categorical(logits=self.policy(obs))
                    action = dist.sample()
                    self.log_probs.append(dist.log_prob(action))  # TLK102
                    return action.item()

                def update(self, returns):
                    old = torch.stack(self.log_probs).detach()
                    self.log_probs.clear()
                    return old

            agent = Agent()
            for step in range(1000):
                obs, reward = env.step(agent.act(obs))
            """,
            "a method that runs the policy and keeps what it computes: reported at its store, where the fix goes",
        ),
        Flagged(
            """
            import torch.nn as nn

            class Queue(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("keys", torch.zeros(1024, 8))
                    self.ptr = 0

                def push(self, k):
                    self.keys[self.ptr:self.ptr + k.size(0)] = k
                    self.ptr = (self.ptr + k.size(0)) % 1024

            queue = Queue()
            for x, _ in loader:
                k = model(x)
                k.sum().backward()
                optimizer.step()
                queue.push(k)  # TLK102
            """,
            "a write into a registered buffer keeps a link to every version written, overwritten slots included",
        ),
    )
    clean: ClassVar[tuple[Clean, ...]] = (
        Clean(
            """
            class Probe(nn.Module):
                def forward(self, x):
                    h = self.encoder(x)
                    self.activations.append(h.detach())
                    self.attention_maps = []
                    for block in self.blocks:
                        h, attention = block(h)
                        self.attention_maps.append(attention)
                    return self.head(h)
            """,
            "forward keeps detached activations, and a list it resets on every call",
        ),
        Clean(
            """
            class Probe(nn.Module):
                def forward(self, x):
                    h = self.encoder(x)
                    self.features.append(h)
                    return self.head(h)

            def train(model, loader):
                for x, y in loader:
                    loss = criterion(model(x), y) + 0.1 * sum(f.pow(2).mean() for f in model.features)
                    loss.backward()
                    optimizer.step()
                    model.features.clear()
            """,
            "the training loop consumes and clears what forward keeps, every step",
        ),
        Clean(
            """
            import torch
            preds = []
            with torch.no_grad():
                for x, _ in val_loader:
                    preds.append(model(x))
            """,
            "computed under torch.no_grad(), the outputs carry no graph",
        ),
        Clean(
            """
            history = []
            for x, y in loader:
                out = model(x)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
                history.append(out.detach())
                history.append(loss.item())
                history.append({"loss": loss.item()})
            """,
            "stored values are detached or plain numbers",
        ),
        Clean(
            """
            import torch
            losses = []
            for x, y in loader:
                losses.append(criterion(model(x), y))
                if len(losses) == 4:
                    torch.stack(losses).mean().backward()
                    optimizer.step()
                    losses = []
            """,
            "the collected losses are backwarded together, which is the point",
        ),
        Clean(
            """
            for x, y in loader:
                outputs = []
                for t in range(x.size(0)):
                    out, h = cell(x[t], h0)
                    outputs.append(out)
                loss = criterion(torch.stack(outputs), y)
                loss.backward()
                optimizer.step()
            """,
            "a list created inside the iteration dies with it",
        ),
        Clean(
            """
            class LitModel(LightningModule):
                def validation_step(self, batch, batch_idx):
                    x, y = batch
                    self.validation_step_outputs.append(self(x))
            """,
            "Lightning runs validation_step under no_grad",
        ),
        Clean(
            """
            stats = {}
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                stats["last_loss"] = loss
            """,
            "one fixed slot is overwritten each step: it holds one graph, not one per step",
        ),
        Clean(
            """
            layers = []
            for i in range(4):
                layers.append(nn.Linear(8, 8))
            features = []
            for layer in layers:
                x = layer(x)
                features.append(x)
            """,
            "loops over layers inside one forward pass are not loops over batches",
        ),
        Clean(
            """
            for x, y in loader:
                out = model(x)
                loss = criterion(out, y)
                loss.backward()
                optimizer.step()
                metric.update(out, y)
            """,
            "torchmetrics' update runs with grad disabled",
        ),
        Clean(
            """
            import torch
            def predict(model, loader):
                preds = []
                for x in loader:
                    preds.append(model(x))
                return torch.cat(preds)

            with torch.no_grad():
                predictions = predict(model, test_loader)
            """,
            "a helper that this file only calls under torch.no_grad() runs without grad",
        ),
        Clean(
            """
            import torch.nn.functional as F


            def compute(model, batch):
                x, y = batch
                logits = model(x)
                loss = F.cross_entropy(logits, y)
                return loss, logits.argmax(1)


            predictions = []
            for batch in loader:
                loss, pred = compute(model, batch)
                loss.backward()
                optimizer.step()
                predictions.append(pred)
            """,
            'a helper returns (loss, logits.argmax(1)): the stored second element is an integer tensor without graph',
        ),
    )
    demo: ClassVar[LeakDemo | None] = LeakDemo(
        setup="""
            model = nn.Sequential(nn.Linear(64, 6400), nn.ReLU(), nn.Linear(6400, 1)).to(device)
            model.eval()  # evaluation mode, but no torch.no_grad(): autograd still records
            loader = [torch.randn(128, 64, device=device) for _ in range(4)]
            outputs = []
        """,
        leaky="""
            outputs.append(model(batch))
        """,
        fixed="""
            outputs.append(model(batch).detach())
        """,
        meter="tensor",
        expectation=(
            "holds 3,277,312 B more tensor memory every iteration: each batch's 128x6400 ReLU "
            "activations (3,276,800 B) and its output (512 B)"
        ),
    )

    def check(self, facts: FileFacts) -> Iterator[Report]:
        for event, loop in held_across_iterations(facts, double_backward=False):
            if not isinstance(event, Store):
                continue
            value = statement_text(facts, event.value_node, limit=40)
            container = keeps_several(facts, event)
            never_backwards = not loop.has_backward and not loop.per_batch_method and not loop.opaque_use
            if container and never_backwards:
                fix = "this loop never calls backward: run it under torch.no_grad(), or store .detach() of each tensor in it"
            elif container:
                fix = "store .item() or .detach() of each tensor in it"
            elif never_backwards:
                fix = f"this loop never calls backward: run it under torch.no_grad(), or store {value}.detach()"
            else:
                fix = f"store {value}.detach() (or .item() for a number)"
            if event.argument_returned:
                callee = event.via.split(" ", 1)[0]
                stored = f".detach() of each tensor in {value}" if container else f"{value}.detach()"
                fix = f"store {stored} inside {callee} (it also returns what it computes from it, so passing it detached would stop its gradient)"
            elif event.in_callee and event.given:
                # what the caller gave is attached already: no_grad around the call would not cut it
                fix = f"store .item() or .detach() of each tensor in {value} here" if container else f"store {value}.detach() here (or .item() for a number)"
            elif event.in_callee and _backwards(facts, event.in_callee):
                # (the helper trains: no_grad around its call would stop its own backward)
                fix = f"store .detach() of each tensor in {value} here" if container else f"store {value}.detach() here (or .item() for a number)"
            elif event.in_callee and container:
                fix = f"store .detach() of each tensor in {value} here (or call {event.in_callee.rsplit('.', 1)[-1]} under torch.no_grad() when nothing backwards it)"
            elif event.in_callee:
                fix = f"store {value}.detach() here (or call {event.in_callee.rsplit('.', 1)[-1]} under torch.no_grad() when nothing backwards it)"
            elif event.via and "forward hook" not in event.via and container:
                fix = f"put .item() or .detach() of each tensor in {value}"
            elif event.via and "forward hook" not in event.via:
                fix = f"pass {value}.detach() (or .item() for a number)"
                if event.value_node is event.node:
                    # The helper stores a value it computes itself, not one it was given.
                    value = "what it computes"
                    fix = "store .detach() (or .item()) of it in the helper, or make the call under torch.no_grad()"
            through = f" ({event.via})" if event.via else ""
            fields = {"statement": statement_text(facts, event.node), "value": value, "fix": fix, "through": through}
            yield Report(event.node, fields, event, loop)

    def fix(self, report: Report, facts: FileFacts) -> Fix | None:
        """Store ``.detach()`` of the value (of each attached value in a literal)."""
        event = report.event
        if not isinstance(event, Store) or event.argument_returned:
            return None  # the detach belongs in the callee, which needs the attached value
        return detach_fix(facts, event)


def _backwards(facts: FileFacts, name: str) -> bool:
    """The file's function ``name`` runs a backward itself (or through its helpers)."""
    return any(function.name == name and function.summary.calls_backward for function in facts.functions)
