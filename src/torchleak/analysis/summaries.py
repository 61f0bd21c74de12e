"""What a function does, as plain data applied at each call site (no tree nodes, so it can be
compared and cached): its return value as a function of its arguments, and its effects."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Container, Literal, Mapping, Optional, Sequence, Union, cast

from torchleak.analysis.values import DETACHED, Value, value_from_dict, value_to_dict

#: store: appended/inserted/assigned into a container; accumulate: ``+=`` or ``x = x + v``;
#: carry: an attribute rebound from a call that received its previous value (a recurrent
#: state); reset: an attribute rebound to a value with no graph (``self.h = None``).
EffectKind = Literal["store", "accumulate", "carry", "reset", "set"]


_ARGUMENT_TARGET = re.compile(r"arg(\d+)(?=[.\[]|$)")


def argument_position(target: str) -> Optional[int]:
    """The parameter position an effect's ``arg<i>`` target names, or None for ``self.<attr>``
    and globals (``args.n``, a global ``args``, is not parameter ``s``)."""
    match = _ARGUMENT_TARGET.match(target)
    return int(match.group(1)) if match is not None else None


@dataclass(frozen=True)
class Effect:
    """One thing a function does to state that outlives the call.

    ``target`` is where the value goes: ``self.<attr>`` (the receiver's attribute),
    ``arg<i>`` (the container passed as parameter i, or ``arg<i>.<attr>``), or a module-level
    name (a global).
    """

    kind: EffectKind
    target: str
    #: The stored value; symbolic (``params``) when it depends on the arguments.
    value: Value
    #: The function it happens in, for messages (``AverageMeter.update``); the statement itself
    #: is in ``Function.effect_nodes``.
    where: str
    #: The method or operator that stores it (``append``, ``+=``, ``[]=``).
    method: str = ""
    #: For a function of another module: the file and line of the statement
    #: (``utils.py:25``), so that a finding at the call site can say where the helper acts.
    origin: str = ""
    #: How many branches deep the statement sits in its function: a reset deeper than the
    #: stores it undoes runs on some calls only (``if len(self.losses) % 1000 == 0: ...clear()``).
    depth: int = 0
    #: It happens inside a batch loop of the function (PPO's epochs over a rollout): the
    #: function's own file reports what it carries there, not each call of it again.
    in_batch_loop: bool = False
    #: A slot store (``self.scores[idx] = conf``): the positions of the parameters its key
    #: comes from (``for idx in indices.tolist()``), -1 for a counter the function advances; an
    #: importer cannot see the function's code to tell whether each call writes another slot.
    keyed: tuple[int, ...] = ()
    #: The position of a parameter whose default is ``False``/``None`` and whose test guards the
    #: statement (``if track: self._update_history(out)``): a call that does not pass it (or
    #: passes ``False``/``None``) never runs it; -1 when nothing guards it so.
    when_given: int = -1
    #: It keeps the entries of a parameter one by one, in a loop over it (``for name, value in
    #: metrics.items(): self.sums[name] += value * n``): the fix goes there, per entry, since a
    #: caller hands over a dict it cannot ``.item()``.
    per_entry: bool = False
    #: The function does it through a method of its own object (``self.update_with_all_losses(...)``
    #: keeping in ``self._loss_history``), not through an object it holds or is given.
    through_self: bool = False

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind, "target": self.target, "value": value_to_dict(self.value), "where": self.where}
        if self.when_given >= 0:
            data["when_given"] = self.when_given
        if self.in_batch_loop:
            data["in_batch_loop"] = True
        if self.keyed:
            data["keyed"] = list(self.keyed)
        if self.method:
            data["method"] = self.method
        if self.origin:
            data["origin"] = self.origin
        if self.depth:
            data["depth"] = self.depth
        if self.per_entry:
            data["per_entry"] = True
        if self.through_self:
            data["through_self"] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Effect:
        kind = str(data["kind"])
        if kind not in ("store", "accumulate", "carry", "reset", "set"):
            raise ValueError(f"unknown effect kind {kind!r}")
        return cls(
            cast(EffectKind, kind),
            str(data["target"]),
            value_from_dict(cast(Mapping[str, object], data["value"])),
            str(data["where"]),
            str(data.get("method", "")),
            str(data.get("origin", "")),
            int(cast(int, data.get("depth", 0))),
            bool(data.get("in_batch_loop", False)),
            tuple(int(position) for position in cast(list[int], data.get("keyed", []))),
            int(cast(int, data.get("when_given", -1))),
            bool(data.get("per_entry", False)),
            bool(data.get("through_self", False)),
        )


@dataclass
class Summary:
    """The facts about one function that its callers need."""

    name: str
    returns: Value = DETACHED
    effects: list[Effect] = field(default_factory=list)
    calls_backward: bool = False
    steps_optimizer: bool = False
    runs_forward: bool = False
    no_grad: bool = False
    #: Puts a module in evaluation mode (``model.eval()``): what it computes is not trained on.
    evaluates: bool = False
    #: Walked as a per-batch method because another module calls it in a loop: what it keeps
    #: is reported in its own body, not again at each call.
    per_batch: bool = False
    #: Runs ``backward(retain_graph=...)`` with no backward after it: a state it carries on its
    #: object is one that retain papers over, which its own module reports (TLK202), not each
    #: caller again (TLK103).
    retains: bool = False
    #: Parameter names by position (``self`` included), for messages and hook wiring.
    parameters: tuple[str, ...] = ()
    #: The file of another module of the project that defines it (``utils.py``); "" for this file.
    module: str = ""
    #: Attributes of ``self`` whose graph its backward differentiates (``self.fake_B``): a
    #: ``retain_graph=True`` elsewhere is needed only if a later backward shares one.
    backward_sources: frozenset[str] = frozenset()
    #: When every backward it runs is ``torch.autograd.grad(..., inputs)`` with inputs among its
    #: parameters: those parameter positions (``inner_opt.step(loss, params)`` differentiating
    #: with respect to ``params``); None otherwise.
    grad_inputs: Optional[frozenset[int]] = None
    #: Parameter positions it returns as they came or not at all, never computing with them
    #: (``if now < best: best = now`` then ``return best``): a value given to it and bound to
    #: its result is kept or replaced, not chained onto.
    returned_unchanged: frozenset[int] = frozenset()
    #: (source, target, through values): a method computes attribute ``target`` of its object
    #: from attribute ``source`` (``self.hx`` into ``self.log_probs``), directly or through its locals.
    attribute_flows: tuple[tuple[str, str, bool], ...] = ()
    #: Parameter positions it adds a graph-attached value to and returns (``total += loss;
    #: return total``): ``total = step(batch, total)`` in a loop accumulates like ``total += loss``.
    accumulated_parameters: frozenset[int] = frozenset()
    #: The parameter position its backward takes ``retain_graph`` from
    #: (``def optimize(opt, loss, retain_graph=False): loss.backward(retain_graph=retain_graph)``).
    retain_parameter: Optional[int] = None
    #: The parameter position that switches its grad mode, default on
    #: (``def regression(self, data, track_gradient=True): with torch.set_grad_enabled(track_gradient):``):
    #: a call passing ``False`` there computes nothing attached.
    grad_parameter: Optional[int] = None
    #: Of a function that backwards: the parameter positions whose values may reach that
    #: backward (a meter or a list it is given, and only updates, are not among them); None
    #: when not known (it runs no backward itself, or was summarised without its body).
    backwarded_parameters: Optional[frozenset[int]] = None
    #: The module-level object every ``return`` hands back (``return _CURRENT``, ``return
    #: Logger.CURRENT``: a logger's ``get_current()``): what a call's method keeps on ``self``
    #: is kept on that global; "" otherwise.
    returns_global: str = ""
    #: ``if torch.is_tensor(x): return x.item()`` early on: the position of ``x``, and what the
    #: function returns when ``x`` is a tensor (the returns up to that one); a call passing a
    #: tensor there gets that, not the ``return x`` meant for other values.
    tensor_parameter: Optional[int] = None
    tensor_returns: Optional[Value] = None
    #: Parameter positions it calls, itself or through a helper it hands them to
    #: (``odeint(func, y0)`` calling ``func`` in ``rk4_step``): given a module there, what it
    #: returns from its arguments ran that module's forward.
    called_parameters: frozenset[int] = frozenset()
    #: A method its own class runs once per batch (``fit_batch`` calling ``self.compute_objectives``,
    #: run by ``fit``'s loop): a subclass in another module overriding it is a per-batch method.
    per_batch_hook: bool = False
    #: For each parameter position, the method of the object whose result the class passes
    #: there (``self.compute_objectives(predictions, batch)`` after ``predictions =
    #: self.compute_forward(batch)``: ``("", "compute_forward", "")``); "" where none.
    hook_sources: tuple[str, ...] = ()
    #: Of a method: the attributes of ``self`` what it returns is computed from, not through
    #: ``.item()`` or ``.detach()`` (``return self.acc_loss / self.norm_term``): at a call, the
    #: result holds a graph when the caller's object holds one there (a loss object that its
    #: ``eval_batch`` fed the batch's graph).
    returned_attributes: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        """``meta.py:meta_loss``: the function project-wide (``name`` alone within its file)."""
        return f"{self.module}:{self.name}" if self.module else self.name

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form (the on-disk cache of project-wide analysis stores summaries)."""
        flags = [name for name in _FLAGS if getattr(self, name)]
        return {
            "name": self.name,
            "returns": value_to_dict(self.returns),
            "effects": [effect.to_dict() for effect in self.effects],
            "flags": flags,
            "parameters": list(self.parameters),
            "module": self.module,
            "backward_sources": sorted(self.backward_sources),
            "grad_inputs": None if self.grad_inputs is None else sorted(self.grad_inputs),
            "returned_unchanged": sorted(self.returned_unchanged),
            "attribute_flows": [list(flow) for flow in self.attribute_flows],
            "accumulated_parameters": sorted(self.accumulated_parameters),
            "retain_parameter": self.retain_parameter,
            "grad_parameter": self.grad_parameter,
            "backwarded_parameters": None if self.backwarded_parameters is None else sorted(self.backwarded_parameters),
            "returns_global": self.returns_global,
            "tensor_parameter": self.tensor_parameter,
            "tensor_returns": None if self.tensor_returns is None else value_to_dict(self.tensor_returns),
            "called_parameters": sorted(self.called_parameters),
            "hook_sources": list(self.hook_sources),
            "returned_attributes": sorted(self.returned_attributes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Summary:
        flags = set(cast(list[object], data.get("flags", [])))
        return cls(
            str(data["name"]),
            value_from_dict(cast(Mapping[str, object], data["returns"])),
            [Effect.from_dict(effect) for effect in cast(list[Mapping[str, object]], data.get("effects", []))],
            parameters=tuple(str(name) for name in cast(list[object], data.get("parameters", []))),
            module=str(data.get("module", "")),
            backward_sources=frozenset(str(key) for key in cast(list[object], data.get("backward_sources", []))),
            grad_inputs=None if data.get("grad_inputs") is None else frozenset(int(cast(int, i)) for i in cast(list[object], data["grad_inputs"])),
            returned_unchanged=frozenset(int(cast(int, i)) for i in cast(list[object], data.get("returned_unchanged", []))),
            retain_parameter=None if data.get("retain_parameter") is None else int(cast(int, data["retain_parameter"])),
            grad_parameter=None if data.get("grad_parameter") is None else int(cast(int, data["grad_parameter"])),
            backwarded_parameters=None if data.get("backwarded_parameters") is None
            else frozenset(int(cast(int, i)) for i in cast(list[object], data["backwarded_parameters"])),
            accumulated_parameters=frozenset(int(cast(int, i)) for i in cast(list[object], data.get("accumulated_parameters", []))),
            attribute_flows=tuple(
                (str(flow[0]), str(flow[1]), bool(flow[2])) for flow in cast(list[list[object]], data.get("attribute_flows", []))
            ),
            returns_global=str(data.get("returns_global", "")),
            tensor_parameter=None if data.get("tensor_parameter") is None else int(cast(int, data["tensor_parameter"])),
            tensor_returns=None if data.get("tensor_returns") is None else value_from_dict(cast(Mapping[str, object], data["tensor_returns"])),
            called_parameters=frozenset(int(cast(int, i)) for i in cast(list[object], data.get("called_parameters", []))),
            hook_sources=tuple(str(name) for name in cast(list[object], data.get("hook_sources", []))),
            returned_attributes=frozenset(str(name) for name in cast(list[object], data.get("returned_attributes", []))),
            **{name: name in flags for name in _FLAGS},
        )


_FLAGS = ("calls_backward", "steps_optimizer", "runs_forward", "no_grad", "evaluates", "per_batch", "retains", "per_batch_hook")


@dataclass
class ClassSummary:
    """A class of another module of the project, as its importers see it: its methods (its
    bases' included, nearest first) and what ``self.<attribute>`` holds."""

    name: str
    #: The file that defines it, relative to the project root (``utils.py``).
    module: str
    is_module: bool = False
    methods: dict[str, Summary] = field(default_factory=dict)
    attributes: dict[str, Value] = field(default_factory=dict)
    #: For a record class (a dataclass, an attribute dict), the fields it declares; else None.
    fields: Optional[tuple[str, ...]] = None

    @property
    def key(self) -> str:
        """How values name the class (``Value.cls``): unique across the project."""
        return class_key(self.module, self.name)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "module": self.module,
            "is_module": self.is_module,
            "methods": {name: summary.to_dict() for name, summary in self.methods.items()},
            "attributes": {name: value_to_dict(value) for name, value in self.attributes.items()},
            "fields": None if self.fields is None else list(self.fields),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ClassSummary:
        return cls(
            str(data["name"]),
            str(data["module"]),
            bool(data.get("is_module", False)),
            {str(name): Summary.from_dict(summary) for name, summary in cast(dict[str, Mapping[str, object]], data.get("methods", {})).items()},
            {str(name): value_from_dict(value) for name, value in cast(dict[str, Mapping[str, object]], data.get("attributes", {})).items()},
            None if data.get("fields") is None else tuple(str(name) for name in cast(list[object], data["fields"])),
        )


def class_key(module: str, name: str) -> str:
    """``utils.py:AverageMeter``: a class of another module, as ``Value.cls`` names it."""
    return f"{module}:{name}"


@dataclass
class ModuleSummary:
    """What one module of the project offers its importers: its top-level functions and classes."""

    #: The file, relative to the project root, with ``/`` separators.
    path: str
    functions: dict[str, Summary] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    #: Functions of other modules (``Summary.key``) whose results this module backwards: their
    #: own analysis treats a sum they return as made for that backward.
    backwarded: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "functions": {name: summary.to_dict() for name, summary in self.functions.items()},
            "classes": {name: info.to_dict() for name, info in self.classes.items()},
            "backwarded": list(self.backwarded),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ModuleSummary:
        return cls(
            str(data["path"]),
            {str(name): Summary.from_dict(summary) for name, summary in cast(dict[str, Mapping[str, object]], data.get("functions", {})).items()},
            {str(name): ClassSummary.from_dict(info) for name, info in cast(dict[str, Mapping[str, object]], data.get("classes", {})).items()},
            [str(key) for key in cast(list[object], data.get("backwarded", []))],
        )


#: What an imported name stands for: a function, a class, or a whole module (``import utils``).
Imported = Union[Summary, ClassSummary, ModuleSummary]


@dataclass
class Externals:
    """What a file's imports of its project's own modules bind, for the analysis of that file."""

    #: Local name (``AverageMeter``, ``utils``, ``pkg.mod``) -> what it stands for (the
    #: project index resolves each name when it is first asked for).
    names: Mapping[str, Imported] = field(default_factory=dict)
    #: Every class of another module that a value may name (``Value.cls``), by ``class_key``.
    classes: Mapping[str, ClassSummary] = field(default_factory=dict)
    #: Functions of this file whose results another module of the project backwards.
    backwarded_by_importers: Container[str] = frozenset()
    #: Methods of this file's classes (``Decoder.sample``) that another module of the project
    #: calls with grad enabled on an instance it builds.
    called_with_grad_by_importers: Container[str] = frozenset()
    #: (function, parameter position, class key): an instance of a project class that a module
    #: importing this one builds and passes (``TrainManager(model, cfg)`` in ``train.py``).
    argument_classes_by_importers: Collection[tuple[str, int, str]] = frozenset()
    #: Of those, the methods it calls so inside a loop (``learner.train(batch)`` in ``main.py``'s
    #: loop): their stores into the object's state outlive each call, as a per-batch method's do.
    called_per_batch_by_importers: Container[str] = frozenset()
    #: Whether the file passes the pre-filter, so that linting it analyses it (a module summarised
    #: for an importer may not): only then are its methods per batch by their importers' loops.
    analysed_when_linted: Callable[[], bool] = lambda: True
    #: The linted file's folder relative to the project root (``scripts/``): messages name a
    #: helper's file relative to it when the helper lives in it or below.
    directory: str = ""
    #: The linted file relative to the project root (``losses.py``): how its importers' call
    #: sites name its functions (``losses.py:discriminator_step``).
    path: str = ""
    #: The analyses (``FileFacts``) of the project's modules importing this file, made when a
    #: rule first asks (a helper's ``retain_graph=True`` is judged by its callers' loops).
    importer_facts: Callable[[], Sequence[Any]] = lambda: ()
    #: Whether a leak through another module's helper (``utils.py:Logger.log``) is reported in
    #: the helper, not at its call (``ProjectIndex.fixed_in_helper``); never outside a project.
    fixed_in_helper: Callable[[str], bool] = lambda key: False
    #: The analyses of the modules importing this file that call one of its helpers by name.
    importers_calling: Callable[[str], Sequence[Any]] = lambda key: ()
    #: The analyses of the modules importing those (a loop of ``train.py`` calling
    #: ``agent.step``, which hands the loss to this file's ``TrainingStats.add_loss``).
    importers_one_further: Callable[[str], Sequence[Any]] = lambda key: ()

    def shown(self, origin: str) -> str:
        """``utils.py:25`` for ``scripts/utils.py:25`` seen from ``scripts/``."""
        return origin[len(self.directory):] if self.directory and origin.startswith(self.directory) else origin

    def resolve(self, dotted: str) -> Imported | None:
        """What ``utils.AverageMeter`` or ``m.train_one_epoch`` names, through imported modules."""
        found = self.names.get(dotted)
        if found is not None:
            return found
        head, _, rest = dotted.rpartition(".")
        while head:
            owner = self.names.get(head)
            if isinstance(owner, ModuleSummary):
                return owner.functions.get(rest) or owner.classes.get(rest) or self.reexported(owner, rest)
            if owner is not None or "." not in head:
                return None
            head, _, last = head.rpartition(".")
            rest = f"{last}.{rest}"
        return None

    def reexported(self, module: ModuleSummary, name: str) -> Imported | None:
        """What ``module.name`` is when ``module`` does not define ``name`` itself but imports
        it (``from pkg import algo`` then ``algo.A2C``, with ``algo/__init__.py`` importing
        ``A2C`` from a sibling). A summary lists only what a module defines; the project index
        follows its imports."""
        return None

    def methods_named(self, method: str) -> list[Summary]:
        """The method ``method`` of each imported class that has one (``meter.update`` on an
        object whose class the file does not show)."""
        return [c.methods[method] for c in self.names.values() if isinstance(c, ClassSummary) and method in c.methods]

    def project_methods_named(self, method: str) -> list[Summary]:
        """The method ``method`` of each class of the whole project that defines one, imported
        or not (``self.logger.log_stat(...)`` on an object the entry script built and passed
        in); empty outside a project."""
        return []

    def project_overrides(self, base: str, method: str) -> list[Summary]:
        """``method`` as the one class of another module of the project that names ``base``
        among its bases defines it (``DQNPolicy.learn`` for ``BasePolicy``'s abstract
        ``learn``); empty when none or several do, and outside a project."""
        return []
