"""Building blocks of the rules' fixes: what can be established about a value before editing it
(is it a tensor, a one-element tensor, does it leave its function) and the libcst edits.

Every question here answers "yes" only on evidence in the file, so that a fix called safe
keeps the program's behaviour apart from the leak; "don't know" makes a fix unsafe, never
safe. The evidence is deliberately plain: ``loss.backward()`` proves ``loss`` is a one-element
tensor, ``torch.zeros(...)`` is a tensor, a name is a tensor when every binding of it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Optional, Union

import libcst as cst

from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.facts import Accumulation, BackwardCall, Binding, FileFacts, Function, Loop, Store
from torchleak.analysis.flow import iter_statements
from torchleak.analysis.names import ImportAliases, dotted, last_identifier
from torchleak.rule import Edit, Fix

Safety = Literal["safe", "unsafe"]

#: ``torch.<name>(...)`` functions that return one tensor (not a tuple, not a module).
_TORCH_TENSOR_FUNCTIONS: Final = frozenset(
    {
        "abs", "add", "addmm", "amax", "amin", "as_tensor", "atan2", "baddbmm", "bmm", "cat", "cdist",
        "clamp", "clip", "concat", "concatenate", "cos", "cosh", "cumprod", "cumsum", "diag", "diagonal",
        "div", "dot", "einsum", "exp", "expm1", "flatten", "flip", "full", "full_like", "gather",
        "hstack", "index_select", "lerp", "log", "log1p", "log2", "log10", "log_softmax", "logsumexp",
        "matmul", "maximum", "mean", "minimum", "mm", "mul", "mv", "neg", "norm", "ones", "ones_like",
        "outer", "permute", "pow", "prod", "rand", "rand_like", "randn", "randn_like", "reciprocal",
        "relu", "reshape", "roll", "rsqrt", "sigmoid", "sin", "sinh", "softmax", "sqrt", "square",
        "squeeze", "stack", "std", "sub", "sum", "t", "tanh", "tensor", "tensordot", "tile",
        "transpose", "tril", "triu", "unsqueeze", "var", "vstack", "where", "zeros", "zeros_like",
        "empty", "empty_like", "arange", "linspace", "eye", "logit", "erf", "clone", "masked_fill",
    }
)
#: ``torch.nn.functional`` members that return a tuple.
_FUNCTIONAL_TUPLES: Final = frozenset({"multi_head_attention_forward", "lstm_cell", "gru_cell"})
#: Tensor methods that return a tensor when called on one.
_TENSOR_METHODS: Final = frozenset(
    {
        "abs", "add", "add_", "bmm", "clamp", "clamp_min", "clamp_max", "clip", "clone", "contiguous",
        "cos", "cpu", "cuda", "cumsum", "div", "div_", "double", "exp", "expand", "expand_as", "flatten",
        "flip", "float", "gather", "half", "bfloat16", "log", "log_softmax", "logsumexp", "masked_fill",
        "matmul", "mean", "mm", "mul", "mul_", "neg", "norm", "permute", "pow", "prod", "reciprocal",
        "relu", "repeat", "reshape", "reshape_as", "rsqrt", "sigmoid", "sin", "softmax", "sqrt",
        "square", "squeeze", "std", "sub", "sub_", "sum", "t", "tanh", "to", "transpose", "type_as",
        "unsqueeze", "var", "view", "view_as", "amax", "amin", "logit", "detach", "requires_grad_",
    }
)
#: Reductions that give a one-element tensor when called with no argument.
_FULL_REDUCTIONS: Final = frozenset({"sum", "mean", "norm", "prod", "std", "var", "logsumexp", "amax", "amin"})
#: Builtins that read a one-element value as a number (so a tensor there must have one element).
_NUMBER_READERS: Final = frozenset({"float", "int", "bool", "complex"})
#: Builtins that read a value and keep nothing of it, whatever its type.
_PLAIN_READERS: Final = frozenset({"str", "repr", "print", "format", "len", "id", "hash"})
#: Builtins whose answer differs between a tensor and a float.
_TYPE_READERS: Final = frozenset({"isinstance", "type"})


# --------------------------------------------------------------------------- the tree around a node


class _TreeCache:
    """The parent of every node and the import aliases of the last module asked about."""

    def __init__(self) -> None:
        self.module: Optional[cst.Module] = None
        self.parents: dict[int, cst.CSTNode] = {}
        self.names: dict[str, list[cst.Name]] = {}
        self.aliases = ImportAliases(())

    def load(self, module: cst.Module) -> _TreeCache:
        if self.module is module:
            return self
        parents: dict[int, cst.CSTNode] = {}
        names: dict[str, list[cst.Name]] = {}
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                names.setdefault(node.value, []).append(node)
            for child in node.children:
                parents[id(child)] = node
                stack.append(child)
        self.module, self.parents, self.names = module, parents, names
        self.aliases = ImportAliases(
            s for s in iter_statements(module.body) if isinstance(s, (cst.Import, cst.ImportFrom))
        )
        return self


_CACHE = _TreeCache()


def tree(facts: FileFacts) -> _TreeCache:
    return _CACHE.load(facts.module)


def _inside(node: cst.CSTNode, root: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> bool:
    current: Optional[cst.CSTNode] = node
    while current is not None:
        if current is root:
            return True
        current = parents.get(id(current))
    return False


# --------------------------------------------------------------------------- what a value is


class Evidence:
    """What the file proves about the values of one function."""

    def __init__(self, facts: FileFacts, function: Function) -> None:
        self.facts = facts
        self.function = function
        self.aliases = tree(facts).aliases
        self._visiting: set[tuple[str, str]] = set()

    # -- bindings
    def _bindings(self, key: str) -> list[Binding]:
        return [b for b in self.function.bindings if b.key == key]

    def _backwarded(self, key: str) -> Optional[bool]:
        """None: never backwarded; True: ``key.backward()`` with no argument (so one element)."""
        found: Optional[bool] = None
        for call in self.function.backwards:
            node = call.node
            if call.kind != "backward" or not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                continue
            positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
            if dotted(node.func.value) == key:
                # ``loss.backward()`` needs a one-element loss unless a gradient is passed.
                gradient = bool(positional) or any(arg.keyword is not None and arg.keyword.value == "gradient" for arg in node.args)
                found = bool(found) or not gradient
            elif positional and dotted(positional[0].value) == key:  # accelerator.backward(loss)
                found = bool(found) or len(positional) == 1
        return found

    def bound(self, binding: Binding, key: str) -> Union[cst.BaseExpression, bool, None]:
        """The expression a binding gives ``key``; True for an element of ``autograd.grad``'s
        result; None when it says nothing (``del``, ``detach_()``); False when unknowable."""
        node = binding.node
        if isinstance(node, (cst.Del, cst.Call)):
            return None  # `del key`, `key.detach_()`: the type is unchanged
        if isinstance(node, cst.AnnAssign):
            return node.value if node.value is not None and dotted(node.target) == key else False
        if isinstance(node, cst.AugAssign):
            # ``key += x``: a tensor stays a tensor; a number plus a tensor becomes one.
            return None if dotted(node.target) == key else False
        if not isinstance(node, cst.Assign):
            return False
        for target in node.targets:
            if dotted(target.target) == key:
                return node.value
            if isinstance(target.target, (cst.Tuple, cst.List)):
                elements = [element.value for element in target.target.elements]
                index = next((i for i, element in enumerate(elements) if dotted(element) == key), None)
                if index is None:
                    continue
                if isinstance(node.value, (cst.Tuple, cst.List)) and len(node.value.elements) == len(elements):
                    return node.value.elements[index].value
                if self._grad_call(node.value):
                    return True
        return False

    def _grad_call(self, node: cst.BaseExpression) -> bool:
        """``torch.autograd.grad(...)`` without ``allow_unused=True``: a tuple of tensors."""
        if not isinstance(node, cst.Call) or (self.aliases.qualify(node.func) or "") not in vocab.AUTOGRAD_GRAD:
            return False
        return not any(arg.keyword is not None and arg.keyword.value == "allow_unused" for arg in node.args)

    def _key_is(self, key: str, kind: Literal["tensor", "scalar"]) -> bool:
        backwarded = self._backwarded(key)
        if backwarded is not None and (kind == "tensor" or backwarded):
            return True
        if (key, kind) in self._visiting:
            return True  # x = x * 2: holds if every other binding does
        bindings = [bound for bound in (self.bound(b, key) for b in self._bindings(key)) if bound is not None]
        if not bindings:
            return False
        self._visiting.add((key, kind))
        try:
            return all(
                (bound is True and kind == "tensor")
                or (isinstance(bound, cst.BaseExpression) and (self.tensor(bound) if kind == "tensor" else self.scalar(bound)))
                for bound in bindings
            )
        finally:
            self._visiting.discard((key, kind))

    # -- the questions
    def tensor(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is certainly one tensor (not a tuple, a model output, a number)."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            key = dotted(node)
            return key is not None and self._key_is(key, "tensor")
        if isinstance(node, cst.Call):
            name = self.aliases.qualify(node.func) or ""
            if name.startswith("torch.nn.functional."):
                return name.rsplit(".", 1)[1] not in _FUNCTIONAL_TUPLES and not _has_keyword(node, "return_indices")
            if name.startswith("torch.") and name.count(".") == 1:
                return name[6:] in _TORCH_TENSOR_FUNCTIONS
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _TENSOR_METHODS:
                return self.tensor(node.func.value)
            return self._loss_module_call(node) is not None
        if isinstance(node, cst.Subscript):
            return self.tensor(node.value) or self._grad_call(node.value)
        if isinstance(node, cst.BinaryOperation):
            if _is_text(node.left) or isinstance(node.left, (cst.List, cst.Tuple)) or isinstance(node.right, (cst.List, cst.Tuple)):
                return False
            return self.tensor(node.left) or self.tensor(node.right)
        if isinstance(node, cst.UnaryOperation):
            return not isinstance(node.operator, cst.Not) and self.tensor(node.expression)
        if isinstance(node, cst.IfExp):
            return self.tensor(node.body) and self.tensor(node.orelse)
        return False

    def scalar(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is certainly a tensor with exactly one element (so ``.item()`` works)."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            key = dotted(node)
            return key is not None and self._key_is(key, "scalar")
        if isinstance(node, cst.Call):
            name = self.aliases.qualify(node.func) or ""
            if vocab.FUNCTIONAL_LOSS.match(name):
                return not _has_keyword(node, "reduction")
            if name in ("torch.sum", "torch.mean") and len(node.args) == 1 and node.args[0].keyword is None:
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _FULL_REDUCTIONS and not node.args:
                return self.tensor(node.func.value)
            constructor = self._loss_module_call(node)
            return constructor is not None and not _has_keyword(constructor, "reduction")
        if isinstance(node, cst.BinaryOperation):
            if _is_text(node.left):
                return False
            left, right = node.left, node.right
            return (self.scalar(left) and (self.scalar(right) or is_number(right))) or (
                self.scalar(right) and is_number(left)
            )
        if isinstance(node, cst.UnaryOperation):
            return not isinstance(node.operator, cst.Not) and self.scalar(node.expression)
        return False

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
                value = statement.value if isinstance(statement, cst.Assign) and len(statement.targets) == 1 else None
                if not isinstance(value, cst.Call):
                    return None
                name = self.aliases.qualify(value.func) or ""
                if not (name.startswith("torch.nn.") and name.endswith("Loss")):
                    return None
                found = value
        return found


def _has_keyword(call: cst.Call, name: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == name for arg in call.args)


def _is_text(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def is_number(node: cst.BaseExpression) -> bool:
    """A plain Python number: a literal, ``len(...)``, ``x.size(0)``, ``x.shape[0]``, ``t.item()``."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return is_number(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return is_number(node.left) and is_number(node.right)
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in ("len", "float", "int"):
            return True
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            return method in ("item", "numel", "dim") or (method == "size" and bool(node.args))
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute):
        return node.value.attr.value == "shape"
    return False


# --------------------------------------------------------------------------- where a value goes


@dataclass(frozen=True)
class Uses:
    """How a function uses a name after storing into it (and what it computes from it)."""

    #: Something computed from it is returned, yielded, stored in an attribute or a container,
    #: or handed to a call that may keep it: code the analysis cannot see may use it.
    escapes: bool
    #: Every use works the same on a Python number (arithmetic, formatting, ``float()``, logging).
    number_only: bool
    #: Some use needs exactly one element (``float(x)``, ``f"{x:.3f}"``, ``if x < best``).
    one_element: bool


def uses(facts: FileFacts, function: Function, key: str) -> Uses:
    """Follow every read of ``key`` in ``function`` (nested functions included) to where it ends."""
    if "." in key:
        return Uses(escapes=True, number_only=False, one_element=False)
    cache = tree(facts)
    walker = _UseWalker(cache.parents, cache.aliases)
    pending, seen = [key], {key}
    while pending:
        name = pending.pop()
        for node in cache.names.get(name, ()):
            if not _inside(node, function.node, cache.parents):
                continue
            role = _role(node, cache.parents)
            if role == "global":
                walker.escape()
            elif role == "load":
                for follow in walker.climb(node, name):
                    if follow not in seen:
                        seen.add(follow)
                        pending.append(follow)
    return Uses(walker.escapes, walker.number_only and not walker.escapes, walker.one_element)


def _names_in(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _names_in(element.value)]
    if isinstance(target, cst.StarredElement):
        return _names_in(target.value)
    return []


def _role(node: cst.Name, parents: dict[int, cst.CSTNode]) -> str:
    """"load", "store", "global" (named by global/nonlocal) or "other" (an attribute's name...)."""
    parent = parents.get(id(node))
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return "other"
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return "other"
    if isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName, cst.Del)):
        return "store"
    if isinstance(parent, cst.NameItem):
        return "global"
    current: cst.CSTNode = node
    while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        current, parent = parent, parents.get(id(parent))
    if isinstance(parent, cst.AssignTarget) and parent.target is current:
        return "store"
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)) and parent.target is current:
        return "store"  # ``key += x`` reads and rebinds key itself: a number does the same
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is current:
        return "store"
    return "load"


class _UseWalker:
    """Climbs from one read to where the value (or what is computed from it) ends up."""

    def __init__(self, parents: dict[int, cst.CSTNode], aliases: ImportAliases) -> None:
        self.parents = parents
        self.aliases = aliases
        self.escapes = False
        self.number_only = True
        self.one_element = False

    def escape(self) -> None:
        self.escapes = True
        self.number_only = False

    def climb(self, node: cst.CSTNode, name: str) -> Iterator[str]:
        """Yields names the value flows into (``avg = total / n`` gives ``avg``)."""
        current = node
        while True:
            parent = self.parents.get(id(current))
            if parent is None:
                return
            if isinstance(parent, cst.BinaryOperation):
                if isinstance(parent.operator, cst.Modulo) and _is_text(parent.left):
                    self.one_element = True  # "%.3f" % x
                    return
            elif isinstance(parent, cst.UnaryOperation):
                if isinstance(parent.operator, cst.Not):
                    self.one_element = True
                    return
            elif isinstance(parent, (cst.BooleanOperation, cst.Comparison, cst.ComparisonTarget)):
                pass
            elif isinstance(parent, (cst.If, cst.While, cst.Assert)):
                self.one_element = True  # the truth of a tensor needs one element
                return
            elif isinstance(parent, cst.IfExp):
                if current is parent.test:
                    self.one_element = True
                    return
            elif isinstance(parent, cst.FormattedStringExpression):
                if parent.format_spec:
                    self.one_element = True  # f"{x:.3f}" formats a tensor's item, a float alike
                return
            elif isinstance(parent, cst.Arg):
                call = self._argument(parent)
                if call is None:
                    return
                parent = call
            elif isinstance(parent, cst.Attribute):
                self.number_only = False  # a method or attribute of the tensor
                grand = self.parents.get(id(parent))
                called = isinstance(grand, cst.Call) and grand.func is parent
                attribute = parent.attr.value
                if (called and attribute in vocab.DETACHING_METHODS) or (not called and attribute in vocab.DETACHING_ATTRIBUTES):
                    return
                if called:
                    assert grand is not None
                    parent = grand
            elif isinstance(parent, cst.Subscript):
                self.number_only = False
                if current is not parent.value:
                    return
            elif isinstance(parent, (cst.Index, cst.SubscriptElement, cst.Slice)):
                self.number_only = False  # used as an index
                return
            elif isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is current:
                return  # ``key[i] += v``: writes into it
            elif isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                yield from self._assigned(parent, name)
                return
            elif isinstance(parent, cst.For) and parent.iter is current:
                self.number_only = False
                yield from (n.value for n in _names_in(parent.target))  # each item is derived from it
                return
            elif isinstance(parent, (cst.AssignTarget, cst.Del)):
                return  # ``key[i] = v``, ``del key[i]``: writes into it, from the function itself
            elif isinstance(parent, cst.Expr):
                return
            elif isinstance(parent, (cst.Element, cst.DictElement, cst.Tuple, cst.List, cst.Set, cst.Dict)):
                self.number_only = False
            else:  # return, yield, lambda, comprehension, for, with, await, starred...
                self.escape()
                return
            current = parent

    def _argument(self, arg: cst.Arg) -> Optional[cst.Call]:
        """The call to go on climbing from when its result is computed from the argument."""
        call = self.parents.get(id(arg))
        if not isinstance(call, cst.Call):
            self.escape()
            return None
        name = dotted(call.func) or ""
        if name in _NUMBER_READERS or name.startswith("math."):
            self.one_element = True
        elif name in _TYPE_READERS:
            self.number_only = False
        elif name in _PLAIN_READERS or any(word in name.lower() for word in vocab.LOGGING_WORDS):
            if name == "format" and len(call.args) > 1:
                self.one_element = True
        elif isinstance(call.func, cst.Name) and name in vocab.PASSING_BUILTINS:
            return call  # sum(xs), max(a, b), list(xs): the result is made of it
        elif (self.aliases.qualify(call.func) or "").startswith("torch.") and not name.endswith(("save", "put")):
            self.number_only = False
            return call  # torch.cat(preds), torch.stack(losses): a new tensor computed from it
        else:
            self.escape()  # a call that may keep it: append, a helper from elsewhere...
        return None

    def _assigned(
        self, statement: Union[cst.Assign, cst.AnnAssign, cst.AugAssign], name: str
    ) -> Iterator[str]:
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        for target in targets:
            if isinstance(target, cst.Name):
                if target.value != name:
                    yield target.value  # follow the new name
            else:
                self.escape()  # into an attribute, a container slot, a tuple: out of sight


# --------------------------------------------------------------------------- edits


def method_call(node: cst.BaseExpression, method: str) -> cst.Call:
    """``node.method()``, parenthesising ``node`` where the attribute would bind wrongly."""
    atomic = isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Tuple))
    if not node.lpar and not (atomic and not isinstance(node, cst.Tuple)):
        node = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=node, attr=cst.Name(method)))


def code(node: cst.CSTNode) -> str:
    return " ".join(cst.Module(body=[]).code_for_node(node).split())


def detach_values(facts: FileFacts, evidence: Evidence, node: cst.BaseExpression) -> Optional[tuple[cst.BaseExpression, bool]]:
    """``node`` with ``.detach()`` on every attached tensor in it, and whether all of those are
    known tensors. Dict, tuple, list and set literals are entered (``{...}.detach()`` would
    raise at run time); None when an attached value cannot be detached in place (``*xs``, a
    comprehension) or nothing in it is known to be attached."""
    changed = False
    known = True

    def visit(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        nonlocal changed, known
        if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            elements: list[cst.BaseElement] = []
            for element in value.elements:
                if isinstance(element, cst.StarredElement):
                    if _maybe_attached(facts, element.value):
                        return None
                    elements.append(element)
                    continue
                new = visit(element.value)
                if new is None:
                    return None
                elements.append(element.with_changes(value=new))
            return value.with_changes(elements=elements)
        if isinstance(value, cst.Dict):
            entries: list[cst.BaseDictElement] = []
            for entry in value.elements:
                if isinstance(entry, cst.StarredDictElement):
                    if _maybe_attached(facts, entry.value):
                        return None
                    entries.append(entry)
                    continue
                new = visit(entry.value)
                if new is None:
                    return None
                entries.append(entry.with_changes(value=new))
            return value.with_changes(elements=entries)
        if isinstance(value, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return None if _maybe_attached(facts, value) else value
        recorded = facts.values.get(id(value))
        if recorded is None:
            return None  # not evaluated by the walk: cannot tell
        if not recorded.attached:
            return value
        changed = True
        known = known and evidence.tensor(value)
        return method_call(value, "detach")

    result = visit(node)
    if result is None or not changed:
        return None
    return result, known


def _maybe_attached(facts: FileFacts, node: cst.BaseExpression) -> bool:
    recorded = facts.values.get(id(node))
    return recorded is None or recorded.attached


def accumulation_fix(facts: FileFacts, event: Accumulation, *, item: bool = True) -> Optional[Fix]:
    """``acc += loss`` becomes ``acc += loss.item()`` where that provably changes nothing but
    the leak, else ``acc += loss.detach()`` (safe where the accumulator stays in the function)."""
    value = event.value_node
    if isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp)):
        return None
    evidence = Evidence(facts, event.function)
    tensor = evidence.tensor(value)
    target = event.target
    owner = target
    while isinstance(owner, cst.Subscript):
        owner = owner.value
    local = isinstance(owner, cst.Name)
    used = uses(facts, event.function, owner.value) if isinstance(owner, cst.Name) else None
    stays = local and used is not None and not used.escapes
    if (
        item
        and isinstance(target, cst.Name)
        and used is not None
        and tensor
        and used.number_only
        and (evidence.scalar(value) or used.one_element)
    ):
        return Fix(
            "safe",
            f"accumulate '{code(method_call(value, 'item'))}' instead of '{code(value)}'",
            (Edit(value, method_call(value, "item")),),
            reason=f"'{code(value)}' is a one-element tensor and '{target.value}' is only ever read as a number",
        )
    new = method_call(value, "detach")
    if tensor and stays:
        reason = f"'{code(value)}' is a tensor and '{code(owner)}' never leaves the function"
    elif not tensor:
        reason = f"'{code(value)}' is not known to be a tensor"
    else:
        reason = f"'{code(owner)}' leaves the function (returned, stored or an attribute): a caller may backward through it"
    return Fix(
        "safe" if tensor and stays else "unsafe",
        f"accumulate '{code(new)}' instead of '{code(value)}'",
        (Edit(value, new),),
        reason=reason,
    )


def store_fix(facts: FileFacts, event: Union[Store, Accumulation]) -> Optional[Fix]:
    """``history.append(out)`` becomes ``history.append(out.detach())``; literals are entered."""
    if isinstance(event, Accumulation):
        return accumulation_fix(facts, event, item=False)
    evidence = Evidence(facts, event.function)
    detached = detach_values(facts, evidence, event.value_node)
    if detached is None:
        return None
    new, known = detached
    stays = not uses(facts, event.function, event.key).escapes
    if known and stays:
        reason = f"every value detached is a tensor and '{event.key}' never leaves the function"
    elif not known:
        reason = "a value detached is not known to be a tensor (a model may return a tuple or a dict)"
    else:
        reason = f"'{event.key}' leaves the function (returned, stored or an attribute): a caller may backward through it"
    return Fix(
        "safe" if known and stays else "unsafe",
        f"store '{code(new)}' instead of '{code(event.value_node)}'",
        (Edit(event.value_node, new),),
        reason=reason,
    )


def remove_argument(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """``f(a, retain_graph=True)`` → ``f(a)``, ``x.backward(retain_graph=True)`` → ``x.backward()``;
    a trailing comma and the line breaks of a call laid out one argument per line are kept."""
    args = list(call.args)
    index = next(i for i, candidate in enumerate(args) if candidate is arg)
    if len(args) == 1:
        return call.with_changes(args=(), whitespace_before_args=cst.SimpleWhitespace(""))
    if index == len(args) - 1:
        args[index - 1] = args[index - 1].with_changes(comma=arg.comma, whitespace_after_arg=arg.whitespace_after_arg)
    del args[index]
    return call.with_changes(args=args)


def keyword_edit(call: cst.Call, arg: cst.Arg) -> Edit:
    """Remove the keyword argument ``arg`` from ``call``."""
    return Edit(call, remove_argument(call, arg))


def loop_top(loop: Loop) -> Optional[cst.CSTNode]:
    """The first statement of an iteration (after a per-batch method's docstring)."""
    body = loop.node.body
    statements: Sequence[cst.CSTNode] = body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if isinstance(loop.node, cst.FunctionDef) and statements and _is_docstring(statements[0]):
        statements = statements[1:]
    return statements[0] if statements else None


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


StateShape = Literal["tensor", "tuple", "optional", "unknown"]


def initial_state(facts: FileFacts, function: Function, loop: Loop, key: str) -> tuple[StateShape, bool]:
    """What the state holds when the loop starts, from its last binding before the loop, and
    whether that is certain (a tensor, or a tuple of tensors such as an LSTM's ``(h, c)``)."""
    if loop.per_batch_method:
        return "unknown", False
    evidence = Evidence(facts, function)
    before = [b for b in function.bindings if b.key == key and b.seq < loop.start]
    if not before:
        return "unknown", False
    bound = evidence.bound(before[-1], key)
    if not isinstance(bound, cst.BaseExpression):
        return ("tensor", True) if bound is True else ("unknown", False)
    if isinstance(bound, cst.Name) and bound.value == "None":
        return "optional", False
    if isinstance(bound, (cst.Tuple, cst.List)):
        return "tuple", all(evidence.tensor(element.value) for element in bound.elements)
    return ("tensor", True) if evidence.tensor(bound) else ("unknown", False)


def state_detach(key: str, shape: StateShape) -> cst.BaseSmallStatement:
    """``h = h.detach()``, or the tuple and None-tolerant forms."""
    if shape == "tuple":
        text = f"{key} = tuple(v.detach() for v in {key})"
    elif shape == "optional":
        text = f"{key} = {key}.detach() if {key} is not None else None"
    else:
        text = f"{key} = {key}.detach()"
    statement = cst.parse_statement(text + "\n")
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement.body[0]


def state_fix_edit(facts: FileFacts, function: Function, loop: Loop, key: str) -> Optional[tuple[Edit, bool, str]]:
    """Detach ``key`` at the top of every iteration of ``loop``: the edit, whether the state's
    shape is certain, and the statement's text."""
    anchor = loop_top(loop)
    if anchor is None:
        return None
    shape, certain = initial_state(facts, function, loop, key)
    statement = state_detach(key, shape)
    return Edit(anchor, before=(statement,)), certain, code(statement)


def later_backward(function: Function, seq: int) -> bool:
    """Whether another backward or ``autograd.grad`` follows ``seq`` in the function."""
    return any(other.seq > seq for other in function.backwards)


def other_backward_in_loop(function: Function, seq: int, loop: Loop) -> bool:
    """Whether another backward runs anywhere in the outermost loop around ``loop``."""
    outermost = list(loop.enclosing())[-1]
    return any(other.seq != seq and outermost.contains(other.seq) for other in function.backwards)


def containing_line(facts: FileFacts, small: cst.CSTNode) -> cst.CSTNode:
    """The statement to insert next to: the line holding ``small`` when it is alone on it."""
    parent = tree(facts).parents.get(id(small))
    if isinstance(parent, cst.SimpleStatementLine):
        return parent
    return small


def carried_state_fix(facts: FileFacts, loop: Loop, binding: Binding) -> Optional[Fix]:
    """Detach a carried state at the top of every iteration (TLK103)."""
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
        reason = f"what '{binding.key}' holds when the loop starts is not known (a tensor, a tuple, None?)"
    elif not harmless:
        reason = "a backward after the loop, or a value kept from it, could be meant to go through every iteration"
    else:
        reason = f"'{binding.key}' starts as a known tensor (or tuple of tensors) and no gradient is meant to flow between iterations"
    return Fix(
        "safe" if certain and harmless else "unsafe",
        f"insert '{text}' at the top of the iteration",
        (edit,),
        reason=reason,
    )


def retain_carried_fix(facts: FileFacts, call: BackwardCall, carried: Sequence[tuple[Loop, Binding]]) -> Optional[Fix]:
    """Detach the states a loop carries and drop ``retain_graph=True`` (TLK202)."""
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


def zero_grad_fix(facts: FileFacts, call: BackwardCall) -> Optional[Fix]:
    """``optimizer.zero_grad(set_to_none=True)`` after the step that follows the backward (TLK302)."""
    loop = call.loop
    if loop is None or loop.per_batch_method or not isinstance(loop.node.body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return None
    passed = False
    for statement in iter_statements(loop.node.body.body):
        if statement is call.statement:
            passed = True
            continue
        if not passed or not isinstance(statement, cst.Expr) or not isinstance(statement.value, cst.Call):
            continue
        func = statement.value.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "step" or statement.value.args:
            continue
        owner = last_identifier(func.value)
        if owner is None or not vocab.OPTIMIZER_NAME.match(owner):
            continue
        line = cst.parse_statement(f"{code(func.value)}.zero_grad(set_to_none=True)\n")
        assert isinstance(line, cst.SimpleStatementLine)
        return Fix(
            "unsafe",
            f"insert '{code(line.body[0])}' after '{code(statement)}'",
            (Edit(containing_line(facts, statement), after=(line.body[0],)),),
            reason="code that reads .grad after the step, or accumulates gradients across iterations on purpose, "
            "behaves differently",
        )
    return None
