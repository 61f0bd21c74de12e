"""The one abstract value of the analysis: graph state x kind, per element for tuples.

A value is plain data (no tree nodes), so that function summaries built from it can be
compared, cached and applied at call sites. ``params`` makes a value symbolic inside a
summary: "attached if argument i is attached".
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace
from typing import Final, Iterable, Mapping, Optional, Sequence


class State(enum.Enum):
    """Whether a value is attached to the autograd graph."""

    ATTACHED = "attached"
    DETACHED = "detached"  # known to carry no graph: .item(), .detach(), no_grad, literals
    UNKNOWN = "unknown"  # no rule reports what it cannot classify


class Kind(enum.Enum):
    """What a value is, as far as the file shows."""

    TENSOR = "tensor"
    NUMBER = "number"  # a Python int/float/bool/str: never carries a graph
    NONE = "none"
    MODULE = "module"  # an nn.Module with parameters: calling it records a graph
    FUNCTION_MODULE = "parameter-free module"  # nn.ReLU(), nn.Softmax(): passes its input's state
    OPTIMIZER = "optimizer"
    LOSS_FUNCTION = "loss function"
    LOADER = "loader"
    TUPLE = "tuple"  # per-element values in ``elements``
    CONTAINER = "container"  # list, dict, deque: ``state`` says whether it holds attached tensors
    INSTANCE = "instance"  # an object of a class defined in the file (``cls``)
    UNKNOWN = "unknown"


#: Kinds of values that never hold a graph themselves (a module's parameters are leaves).
HOLDS_NO_GRAPH: Final = frozenset({Kind.MODULE, Kind.FUNCTION_MODULE, Kind.OPTIMIZER, Kind.LOSS_FUNCTION, Kind.LOADER, Kind.NUMBER, Kind.NONE})


@dataclass(frozen=True)
class Value:
    state: State = State.UNKNOWN
    kind: Kind = Kind.UNKNOWN
    #: Derived from ``torch.autograd.grad(..., create_graph=True)``.
    double_backward: bool = False
    #: For ``Kind.TUPLE``: the value of each element.
    elements: Optional[tuple[Value, ...]] = None
    #: For instances and modules of a class defined in the file: its name.
    cls: Optional[str] = None
    #: Inside a summary: the parameter positions whose attachment this value inherits.
    params: frozenset[int] = frozenset()
    #: A tensor that requires grad but has no history (``nn.Parameter(...)``,
    #: ``x.requires_grad_()``): it holds no graph itself (its state is DETACHED), but what is
    #: computed from it is attached.
    leaf: bool = False
    #: For a container with ``elements``: the last element stands for any number (none
    #: included) of elements like it, so positions from there on are not known. A list built
    #: as ``[loss] + mems`` or appended to: ``x[1:]`` is the tail's value, not the loss's.
    open_tail: bool = False
    #: For a dict built with literal string keys (``{"loss": l, "acc": a}``): the key of each
    #: entry of ``elements``, so that ``d["acc"]`` is that entry's value, not the whole dict's.
    keys: Optional[tuple[str, ...]] = None
    #: Inside a summary: for a parameter of ``params`` read only through literal keys
    #: (``state["pred"]``), those ``(position, key)`` pairs: at a call, the value inherits the
    #: attachment of those entries of the argument, not of the whole dict. A position of
    #: ``params`` with no pair here is inherited whole.
    via_entries: frozenset[tuple[int, str]] = frozenset()

    def __post_init__(self) -> None:
        # Keys name elements one to one; a dict whose entries are no longer all known (an
        # entry added under a computed key, elements dropped) is one value again.
        if self.keys is not None and (self.elements is None or self.open_tail or len(self.keys) != len(self.elements)):
            object.__setattr__(self, "keys", None)
            object.__setattr__(self, "elements", None)
            object.__setattr__(self, "open_tail", False)

    @property
    def records_graph(self) -> bool:
        """Computing from this value records a graph: it is attached, or a leaf requiring grad."""
        return self.state is State.ATTACHED or self.leaf

    @property
    def attached(self) -> bool:
        return self.state is State.ATTACHED

    @property
    def detached(self) -> bool:
        return self.state is State.DETACHED

    @property
    def is_tensor(self) -> bool:
        """Known to be a tensor (a fix may call tensor methods on it)."""
        return self.kind is Kind.TENSOR

    @property
    def is_number(self) -> bool:
        return self.kind is Kind.NUMBER

    @property
    def is_module(self) -> bool:
        return self.kind is Kind.MODULE

    def element(self, index: int) -> Value:
        """The value of ``self[index]`` when it is a tuple with known elements."""
        if self.keys is not None:
            return self.part()  # a dict indexed by a number: not one of its string keys
        if self.elements is not None and self.open_tail:
            fixed = len(self.elements) - 1
            if 0 <= index < fixed:
                return self.elements[index]
            return self.elements[-1] if index >= fixed else join(*self.elements)
        if self.elements is not None and -len(self.elements) <= index < len(self.elements):
            return self.elements[index]
        if self.kind is Kind.TUPLE and self.elements is not None:
            return UNKNOWN
        return self.part()

    def entry(self, key: str) -> Value:
        """The value of ``self[key]`` for a dict with literal keys (any entry's when ``key`` is
        not one of them)."""
        if self.keys is not None and key in self.keys:
            return self.elements[self.keys.index(key)]  # type: ignore[index]
        if len(self.params) == 1 and self == parameter(next(iter(self.params))):
            index = next(iter(self.params))
            return Value(State.UNKNOWN, params=self.params, via_entries=frozenset({(index, key)}))
        return self.part()

    def with_entry(self, key: str, value: Value) -> Value:
        """This dict after ``self[key] = value``: the entry replaced or added when its keys are
        known, else one value joined with it."""
        if self.keys is not None and self.elements is not None:
            keys, elements = list(self.keys), list(self.elements)
            if key in keys:
                elements[keys.index(key)] = value
            else:
                keys.append(key)
                elements.append(value)
            return keyed(dict(zip(keys, elements)))
        if not (self.attached or value.attached):
            return self
        # (a create_graph result put in keeps its double-backward graph in the dict: the dict's
        # graphs are double-backward ones while every attached entry is)
        return replace(self, state=_joined_state([self, value]), double_backward=_all_double_backward(self, value))

    def sliced(self, start: int) -> Value:
        """The value of ``self[start:]`` (``start`` >= 0) for a tuple or container with known
        elements: a tuple or container of the elements from ``start`` on."""
        if self.elements is None or start < 0 or self.keys is not None:
            return self.part()
        rest = self.elements[min(start, len(self.elements) - 1):] if self.open_tail else self.elements[start:]
        inner = tuple_of(rest)
        return Value(inner.state, self.kind, inner.double_backward, inner.elements, params=inner.params, open_tail=self.open_tail)

    def part(self) -> Value:
        """A value taken out of this one (an element, an attribute, a slice) with unknown shape."""
        if self.elements is not None:
            return join(*self.elements)
        if self.attached or self.leaf:
            return Value(State.ATTACHED, Kind.UNKNOWN, self.double_backward, params=self.params, via_entries=self.via_entries)
        if self.kind is Kind.NUMBER and self.detached:
            return self  # ``batch, steps, dim = x.size()``: numbers
        return Value(State.UNKNOWN, params=self.params, via_entries=self.via_entries)

    def with_state(self, state: State) -> Value:
        return replace(self, state=state, elements=None if state is State.DETACHED else self.elements)


UNKNOWN = Value()
ATTACHED = Value(State.ATTACHED, Kind.TENSOR)
DETACHED = Value(State.DETACHED)
NUMBER = Value(State.DETACHED, Kind.NUMBER)
NONE = Value(State.DETACHED, Kind.NONE)
DETACHED_TENSOR = Value(State.DETACHED, Kind.TENSOR)


#: ``nn.Parameter(...)``, ``x.requires_grad_()``: see ``Value.leaf``.
LEAF = Value(State.DETACHED, Kind.TENSOR, leaf=True)


def tensor(state: State, *, double_backward: bool = False, params: frozenset[int] = frozenset()) -> Value:
    return Value(state, Kind.TENSOR, double_backward and state is State.ATTACHED, params=params)


def tuple_of(elements: Sequence[Value]) -> Value:
    """A tuple (or list literal unpacked like one): attached if an element is."""
    state = _joined_state(elements) if elements else State.DETACHED
    return Value(
        state,
        Kind.TUPLE,
        any(e.double_backward for e in elements),
        tuple(elements),
        params=frozenset().union(*(e.params for e in elements)) if elements else frozenset(),
        via_entries=merged_entries(elements),
    )


def _all_double_backward(container: Value, value: Value) -> bool:
    """Whether ``container`` with ``value`` put in holds only double-backward graphs."""
    if not value.attached:
        return container.double_backward
    return value.double_backward and (container.double_backward or not container.attached)


def keyed(entries: Mapping[str, Value]) -> Value:
    """A dict with literal string keys: a container attached if an entry is, each entry's
    value kept under its key."""
    inner = tuple_of(list(entries.values()))
    return Value(inner.state, Kind.CONTAINER, inner.double_backward, inner.elements, params=inner.params, keys=tuple(entries),
                 via_entries=inner.via_entries)


def any_entry(value: Value) -> Value:
    """The value of some element of ``value`` (``d[k]`` for a key not known statically)."""
    if value.elements is not None:
        return join(*value.elements)
    if value.detached and value.kind is Kind.CONTAINER:
        return DETACHED  # nothing in a container without graph carries one
    return value.part()


def _joined_state(values: Sequence[Value]) -> State:
    if any(value.attached for value in values):
        return State.ATTACHED
    if values and all(value.detached for value in values):
        return State.DETACHED
    return State.UNKNOWN


def join(*values: Value) -> Value:
    """The value of something that is one of ``values`` (branches, loop iterations)."""
    if not values:
        return DETACHED
    first = values[0]
    if all(value == first for value in values):
        return first
    objects = [value for value in values if value.kind is not Kind.NONE]
    if objects and len(objects) < len(values) and all(value.kind in (Kind.MODULE, Kind.INSTANCE) and value.cls for value in objects):
        return join(*objects)  # ``Logger(...) if rank == 0 else None``: the logger, where it is one
    state = _joined_state(values)
    kinds = {value.kind for value in values}
    known = [value for value in values if value.kind is not Kind.UNKNOWN or value.state is not State.UNKNOWN]
    if len(known) < len(values) and known and all(value.kind in (Kind.MODULE, Kind.INSTANCE) and value.cls for value in known):
        # ``Net(...)`` on one branch, ``checkpoint["model"]`` on the other: the same kind of object
        return join(*known)
    kind = kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
    elements = None
    open_tail = False
    if kind is Kind.CONTAINER and any(value.keys is not None for value in values):
        return _joined_dicts(values)
    if kind is Kind.CONTAINER and all(value.elements is not None for value in values):
        elements, open_tail = _joined_elements(values)
    if kind is Kind.TUPLE:
        lengths = {len(value.elements) if value.elements is not None else -1 for value in values}
        if len(lengths) == 1 and -1 not in lengths:
            elements = tuple(join(*parts) for parts in zip(*(value.elements or () for value in values)))
        else:
            kind = Kind.UNKNOWN
    classes = {value.cls for value in values}
    return Value(
        state,
        kind,
        any(v.double_backward for v in values if v.attached),
        elements,
        classes.pop() if len(classes) == 1 else None,
        frozenset().union(*(value.params for value in values)),
        all(value.leaf for value in values),
        open_tail,
        via_entries=merged_entries(values),
    )


#: A value that may be an object of any of a few classes (a factory's ``if type == "mlp":
#: return MLPMessage(...)`` / ``return IdentityMessage()``) names them all: ``A|B``.
CLASS_UNION: Final = "|"
_MOST_CLASSES_IN_A_UNION: Final = 4


def join_returned(*values: Value) -> Value:
    """What a function returns: ``join``, except that objects of several known classes (a
    factory's branches) keep their classes as a union, so that a method called on the result
    is one of theirs."""
    joined = join(*values)
    if joined.cls is None and len(values) > 1:
        union = _union_of_classes([value for value in values if value.kind is not Kind.NONE])
        if union is not None and joined.kind in (Kind.MODULE, Kind.INSTANCE):
            return replace(joined, cls=union)
    return joined


def _union_of_classes(values: Sequence[Value]) -> Optional[str]:
    """``A|B`` for objects of several known classes, None when one of them is not an object
    of a known class or there are too many to tell."""
    if not values or not all(value.kind in (Kind.MODULE, Kind.INSTANCE) and value.cls for value in values):
        return None
    classes = sorted({part for value in values for part in classes_of(value.cls)})
    return CLASS_UNION.join(classes) if len(classes) <= _MOST_CLASSES_IN_A_UNION else None


def classes_of(cls: Optional[str]) -> list[str]:
    """The classes a value's ``cls`` names: one, or each of a union."""
    return cls.split(CLASS_UNION) if cls else []


def _joined_dicts(values: Sequence[Value]) -> Value:
    """One of several containers, one at least a dict with literal keys: key by key when every
    one is such a dict or holds no graph at all (``return d`` on one branch, a no-grad copy
    built by a comprehension on the other), else one value."""
    if all(value.keys is not None or (value.elements is None and value.state is not State.UNKNOWN and not value.attached) for value in values):
        names: dict[str, None] = {}
        for value in values:
            names.update(dict.fromkeys(value.keys or ()))
        entries = {}
        for name in names:
            # A key missing from one dict is no value of it (reading it raises there).
            present = [value.entry(name) if value.keys is not None else any_entry(value) for value in values if value.keys is None or name in value.keys]
            entries[name] = join(*present)
        return keyed(entries)
    flat = [replace(value, keys=None, elements=None) for value in values]
    inner = [any_entry(value) for value in values]
    return Value(_joined_state([*flat, *inner]), Kind.CONTAINER, any(v.double_backward for v in values if v.attached),
                 params=frozenset().union(*(value.params for value in values)))


def _joined_elements(values: Sequence[Value]) -> tuple[tuple[Value, ...], bool]:
    """The elements of one of several lists: position by position as long as each list has a
    known element there, then one open tail for whatever any of them holds further on."""
    fixed = [len(value.elements or ()) - (1 if value.open_tail else 0) for value in values]
    prefix = min(fixed)
    joined = [join(*(value.element(index) for value in values)) for index in range(prefix)]
    further = [element for value in values for element in (value.elements or ())[prefix:]]
    if not further:
        return tuple(joined), False
    return (*joined, join(*further)), True


def combine(*values: Value) -> Value:
    """The value computed from ``values`` by arithmetic or a tensor function: attached if any input is."""
    if not values:
        return UNKNOWN
    state = State.ATTACHED if any(value.leaf for value in values) else _joined_state(values)
    kinds = {value.kind for value in values}
    if Kind.TENSOR in kinds or state is State.ATTACHED:
        kind = Kind.TENSOR
    elif kinds <= {Kind.NUMBER, Kind.NONE}:
        kind = Kind.NUMBER
    else:
        kind = Kind.UNKNOWN
    return Value(
        state,
        kind,
        any(v.double_backward for v in values if v.attached),
        params=frozenset().union(*(value.params for value in values)),
        via_entries=merged_entries(values),
    )


def merged_entries(values: Sequence[Value]) -> frozenset[tuple[int, str]]:
    """The ``via_entries`` of a value computed from ``values``: a parameter stays read through
    its keys only if no value depends on it whole."""
    whole = {index for value in values for index in value.params if not any(i == index for i, _ in value.via_entries)}
    return frozenset(pair for value in values for pair in value.via_entries if pair[0] not in whole and pair[0] in value.params)


def _argument(arguments: Mapping[int, Value], value: Value, index: int) -> Value:
    """What a symbolic ``value`` inherits from argument ``index``: the entries it reads of it,
    or the whole argument."""
    keys = [key for i, key in value.via_entries if i == index]
    given = arguments[index]
    return join(*(given.entry(key) for key in sorted(keys))) if keys else given


def substitute(value: Value, arguments: Mapping[int, Value]) -> Value:
    """A summary's value at a call site: ``params`` replaced by the arguments' attachment."""
    if value.elements is not None:
        elements = tuple(substitute(element, arguments) for element in value.elements)
        inner = tuple_of(elements)
        # (an element still symbolic, a caller's argument passed on, keeps the whole symbolic)
        return Value(inner.state if value.kind is Kind.TUPLE else _joined_state([value.with_state(value.state), inner]),
                     value.kind, inner.double_backward or value.double_backward, elements, value.cls, inner.params,
                     open_tail=value.open_tail, keys=value.keys, via_entries=inner.via_entries)
    if len(value.params) == 1 and value == parameter(next(iter(value.params))):
        given = arguments.get(next(iter(value.params)))
        if given is not None and given.keys is not None:
            return given  # the argument itself (``return input_dict``): its entries stay known
    if not value.params or value.detached:
        return replace(value, params=frozenset()) if value.params else value  # no_grad or .detach(): whatever it was given
    inherited = [_argument(arguments, value, i) for i in value.params if i in arguments]
    if value.attached or any(a.records_graph for a in inherited):
        state = State.ATTACHED
    elif value.detached:
        state = State.DETACHED
    elif inherited and len(inherited) == len(value.params) and all(a.detached for a in inherited):
        state = State.DETACHED  # computed only from what it was given, and all of that is detached
    else:
        state = State.UNKNOWN
    double = value.double_backward or any(a.double_backward for a in inherited if a.attached)
    kind = value.kind
    if kind is Kind.UNKNOWN and state is State.ATTACHED:
        kind = Kind.TENSOR if all(a.kind is Kind.TENSOR for a in inherited) and inherited else Kind.UNKNOWN
    # Summaries compose: an argument that is itself symbolic passes its dependence on.
    params = frozenset().union(*(a.params for a in inherited)) if state is State.UNKNOWN and inherited else frozenset()
    via = merged_entries(inherited) if params else frozenset()
    return Value(state, kind, double and state is State.ATTACHED, None, value.cls, params, via_entries=via)


def parameter(index: int) -> Value:
    """The symbolic value of a function's parameter while its summary is built."""
    return Value(State.UNKNOWN, Kind.UNKNOWN, params=frozenset({index}))


def concrete(values: Iterable[Value]) -> list[Value]:
    """The values with their symbolic parameter dependence dropped."""
    return [replace(value, params=frozenset()) for value in values]


# --------------------------------------------------------------------------- plain data on disk
def value_to_dict(value: Value) -> dict[str, object]:
    """A JSON-ready form of ``value``: every field that differs from its default (so typical
    values stay small, and a field added to ``Value`` is stored without changes here)."""
    data: dict[str, object] = {}
    for spec in fields(Value):
        item = getattr(value, spec.name)
        if item == spec.default:
            continue
        if isinstance(item, enum.Enum):
            data[spec.name] = item.value
        elif spec.name == "keys":
            data[spec.name] = list(item)
        elif spec.name == "via_entries":
            data[spec.name] = sorted([index, key] for index, key in item)
        elif isinstance(item, tuple):
            data[spec.name] = [value_to_dict(element) for element in item]
        elif isinstance(item, frozenset):
            data[spec.name] = sorted(item)
        else:
            data[spec.name] = item
    return data


def value_from_dict(data: Mapping[str, object]) -> Value:
    """The inverse of ``value_to_dict``; raises ValueError, KeyError or TypeError on a malformed blob."""
    arguments: dict[str, object] = {}
    for spec in fields(Value):
        if spec.name not in data:
            continue
        item = data[spec.name]
        if isinstance(spec.default, enum.Enum):
            arguments[spec.name] = type(spec.default)(item)
        elif spec.name == "via_entries":
            arguments[spec.name] = frozenset((int(index), str(key)) for index, key in item)  # type: ignore[attr-defined]
        elif isinstance(spec.default, frozenset):
            arguments[spec.name] = frozenset(int(index) for index in item)  # type: ignore[attr-defined]
        elif spec.name == "keys":
            arguments[spec.name] = tuple(str(key) for key in item)  # type: ignore[attr-defined]
        elif spec.name == "elements":
            arguments[spec.name] = tuple(value_from_dict(element) for element in item)  # type: ignore[attr-defined]
        elif isinstance(item, (bool, int, str)) or item is None:
            arguments[spec.name] = item
        else:
            raise TypeError(f"Value.{spec.name}: unexpected {type(item).__name__}")
    return Value(**arguments)  # type: ignore[arg-type]
