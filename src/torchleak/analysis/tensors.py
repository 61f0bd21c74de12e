"""What the analysis establishes about a value before a fix edits it: is it a tensor, a
one-element tensor, what shapes a state carried across iterations can take.

Tensor-ness is read from the abstract value (``Value.kind``) that the walk computed for the
expression; the only other evidence is the file's own code (``loss.backward()`` is a method
of tensors, a loss function's result without ``reduction=`` has one element). Every question
answers "yes" only on that evidence: "don't know" makes a fix unsafe or withdraws it, never
makes it safe.
"""

from __future__ import annotations

from typing import Final, Literal, Optional, Union

import libcst as cst

from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.facts import Binding, FileFacts, Function, Loop
from torchleak.analysis.flow import subtree
from torchleak.analysis.names import ImportAliases, dotted
from torchleak.analysis.values import UNKNOWN, Kind, Value

#: Reductions that give a one-element tensor when called with no argument.
_FULL_REDUCTIONS: Final = frozenset({"sum", "mean", "norm", "prod", "std", "var", "logsumexp", "amax", "amin"})

#: What a carried state can hold when an iteration starts, as far as detaching it goes.
#: "tuple?" is a tuple whose elements are not all known to be tensors.
Shape = Literal["tensor", "tuple", "tuple?", "none", "number", "unknown", "other", "mapping"]


def value_of(facts: FileFacts, node: cst.CSTNode) -> Value:
    """The abstract value the walk computed for ``node`` (unknown where it did not evaluate it)."""
    return facts.values.get(id(node), UNKNOWN)


def shape_of(value: Value) -> Shape:
    """How ``value`` can be detached: one tensor, a tuple of tensors (an LSTM's ``(h, c)``), ..."""
    if value.kind is Kind.TENSOR:
        return "tensor"
    if value.kind is Kind.TUPLE:
        kinds = {element.kind for element in value.elements or ()}
        if not kinds or not kinds <= {Kind.TENSOR, Kind.UNKNOWN}:
            return "other"
        return "tuple" if kinds == {Kind.TENSOR} else "tuple?"
    if value.kind is Kind.NONE:
        return "none"
    if value.kind is Kind.NUMBER:
        return "number"
    if value.kind is Kind.UNKNOWN:
        return "unknown"
    return "other"  # a list, a dict, a module, an object: no one-line detach fits


class TensorEvidence:
    """What the file proves about the values of one function."""

    def __init__(self, facts: FileFacts, function: Function, aliases: ImportAliases) -> None:
        self.facts = facts
        self.function = function
        self.aliases = aliases
        self._visiting: set[str] = set()

    # -- tensors
    def tensor(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is certainly one tensor (not a tuple, a model's output, a number)."""
        if value_of(self.facts, node).kind is Kind.TENSOR:
            return True
        if type(node) is cst.Subscript and self._grad_call(node.value):
            return True  # ``torch.autograd.grad(...)[0]``
        key = dotted(node)
        return key is not None and (self._backwarded(key) is not None or self._grad_element(key))

    def _grad_call(self, node: cst.BaseExpression) -> bool:
        """``torch.autograd.grad(...)`` without ``allow_unused=True``: a tuple of tensors."""
        if type(node) is not cst.Call or (self.aliases.qualify(node.func) or "") not in vocab.AUTOGRAD_GRAD:
            return False
        return not _has_keyword(node, "allow_unused")

    def _grad_element(self, key: str) -> bool:
        """Every binding of ``key`` takes an element of ``torch.autograd.grad``'s tuple:
        ``(g,) = grad(...)``, ``g = grad(...)[0]``."""
        bindings = [b for b in self.function.bindings if b.key == key]
        if not bindings:
            return False
        for binding in bindings:
            statement = binding.node
            if type(statement) is not cst.Assign:
                return False
            value = statement.value
            unpacked = self._grad_call(value) and all(type(t.target) is cst.Tuple or type(t.target) is cst.List for t in statement.targets)
            indexed = type(value) is cst.Subscript and self._grad_call(value.value)
            if not (unpacked or indexed):
                return False
        return True

    def number(self, node: cst.BaseExpression) -> bool:
        """A plain Python number (``len(xs)``, ``x.size(0)``, a literal, ``t.item()``)."""
        return value_of(self.facts, node).kind is Kind.NUMBER

    def _backwarded(self, key: str) -> Optional[bool]:
        """None: never backwarded as a tensor; True: ``key.backward()`` with no argument (so one element)."""
        found: Optional[bool] = None
        for call in self.function.backwards:
            node = call.node
            if call.kind != "backward" or type(node) is not cst.Call or type(node.func) is not cst.Attribute:
                continue
            positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
            if dotted(node.func.value) == key:
                # ``loss.backward()`` needs a one-element loss unless a gradient is passed.
                gradient = bool(positional) or any(arg.keyword is not None and arg.keyword.value == "gradient" for arg in node.args)
                found = bool(found) or not gradient
            elif positional and dotted(positional[0].value) == key:  # accelerator.backward(loss)
                found = bool(found) or len(positional) == 1
        return found

    # -- one element
    def one_element(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is certainly a tensor with exactly one element (so ``.item()`` works)."""
        if not self.tensor(node):
            return False
        if type(node) is cst.Name or type(node) is cst.Attribute:
            key = dotted(node)
            return key is not None and self._key_one_element(key)
        if type(node) is cst.Call:
            name = self.aliases.qualify(node.func) or ""
            if vocab.FUNCTIONAL_LOSS.match(name):
                return not _has_keyword(node, "reduction")
            if name in ("torch.sum", "torch.mean") and len(node.args) == 1 and node.args[0].keyword is None:
                return True
            if type(node.func) is cst.Attribute and node.func.attr.value in _FULL_REDUCTIONS and not node.args:
                return True
            constructor = self._loss_module_call(node)
            return constructor is not None and not _has_keyword(constructor, "reduction")
        if type(node) is cst.BinaryOperation:
            left, right = node.left, node.right
            return (self._one_or_number(left) and self._one_or_number(right)) and not (self.number(left) and self.number(right))
        if type(node) is cst.UnaryOperation:
            return type(node.operator) is not cst.Not and self.one_element(node.expression)
        return False

    def _one_or_number(self, node: cst.BaseExpression) -> bool:
        return self.number(node) or self.one_element(node)

    def _key_one_element(self, key: str) -> bool:
        if self._backwarded(key):
            return True
        if key in self._visiting:
            return True  # x = x * 2: holds if every other binding does
        bound = [expression for expression in (bound_expression(b, key) for b in self.function.bindings if b.key == key) if expression is not None]
        if not bound:
            return False
        self._visiting.add(key)
        try:
            return all(isinstance(expression, cst.BaseExpression) and self.one_element(expression) for expression in bound)
        finally:
            self._visiting.discard(key)

    def _loss_module_call(self, node: cst.Call) -> Optional[cst.Call]:
        """For ``criterion(...)`` where every binding of ``criterion`` in the file is an
        ``nn.<X>Loss(...)`` constructor, that constructor (losses return one tensor)."""
        key = dotted(node.func)
        if key is None:
            return None
        found: Optional[cst.Call] = None
        for function in self.facts.functions:
            for binding in function.bindings:
                if binding.key != key:
                    continue
                statement = binding.node
                value = statement.value if type(statement) is cst.Assign and len(statement.targets) == 1 else None
                if type(value) is not cst.Call or binding.value.kind is not Kind.LOSS_FUNCTION:
                    return None
                found = value
        return found

    # -- carried state
    def state_shapes(self, loop: Loop, key: str) -> set[Shape]:
        """What ``key`` can hold at the top of an iteration of ``loop``: what it held before the
        loop, and what each binding in the loop gives it. A call fed the state that gives an
        unknown value (``out, h = model(x, h)``) is taken to give back the shape it was fed."""
        function = self.function
        before = [b for b in function.bindings if b.key == key and b.seq < loop.start]
        if loop.per_batch_method:
            # The state lives on ``self``: what the class's other methods set it to.
            before = [
                b
                for other in self.facts.functions
                if other is not function and other.cls is not None and other.cls == function.cls
                for b in other.bindings
                if b.key == key
            ]
        shapes: set[Shape] = {shape_of(before[-1].value)} if before and not loop.per_batch_method else {shape_of(b.value) for b in before}
        if not shapes:
            shapes = {"unknown"}
        fed_shape_known = shapes <= {"tensor", "tuple", "tuple?"}
        for binding in function.bindings:
            if binding.key != key or not loop.contains(binding.seq) or (type(binding.node) is cst.Del or type(binding.node) is cst.Call):
                continue
            shape = shape_of(binding.value)
            if shape == "unknown" and binding.fed_to_call and fed_shape_known:
                continue
            shapes.add(shape)
        if "unknown" in shapes and _read_as_mapping(function.node, key):
            shapes.add("mapping")  # ``batch["src"]``: a dict, which no detaching form fits
        return shapes


def _read_as_mapping(node: cst.CSTNode, key: str) -> bool:
    """``key["name"]``, ``key.items()``, ``key.keys()`` or ``key.values()`` somewhere in ``node``."""
    for current in subtree(node):
        if type(current) is cst.Subscript and dotted(current.value) == key and any(
            type(element.slice) is cst.Index and isinstance(element.slice.value, cst.SimpleString) for element in current.slice
        ):
            return True
        if type(current) is cst.Call and type(current.func) is cst.Attribute and current.func.attr.value in ("items", "keys", "values") and dotted(current.func.value) == key:
            return True
    return False


def bound_expression(binding: Binding, key: str) -> Union[cst.BaseExpression, None, bool]:
    """The expression a binding gives ``key``; None when it says nothing about the type (``del``,
    ``detach_()``, ``key += x``); False when it cannot be told (an element of a call's tuple)."""
    node = binding.node
    if type(node) is cst.Del or type(node) is cst.Call or type(node) is cst.AugAssign:
        return None
    if type(node) is cst.AnnAssign:
        return node.value if node.value is not None and dotted(node.target) == key else False
    if type(node) is not cst.Assign:
        return False
    for target in node.targets:
        if dotted(target.target) == key:
            return node.value
        if type(target.target) is cst.Tuple or type(target.target) is cst.List:
            elements = [element.value for element in target.target.elements]
            index = next((i for i, element in enumerate(elements) if dotted(element) == key), None)
            if index is not None and (type(node.value) is cst.Tuple or type(node.value) is cst.List) and len(node.value.elements) == len(elements):
                return node.value.elements[index].value
    return False


def _has_keyword(call: cst.Call, name: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == name for arg in call.args)
