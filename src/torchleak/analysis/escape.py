"""Where a value goes after a statement stores into it: returned, kept, handed to code the
analysis cannot see (it escapes), or only read as a number. The fixes ask it before calling a
change safe: ``total += loss.item()`` is safe only where ``total`` is only ever read as a number.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Optional, Union

import libcst as cst

from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.facts import FileFacts, Function
from torchleak.analysis.names import ImportAliases, dotted

#: Builtins that read a one-element value as a number (so a tensor there must have one element).
_NUMBER_READERS: Final = frozenset({"float", "int", "bool", "complex"})
#: Builtins that read a value and keep nothing of it, whatever its type.
_PLAIN_READERS: Final = frozenset({"str", "repr", "print", "format", "len", "id", "hash"})
#: Builtins whose answer differs between a tensor and a float.
_TYPE_READERS: Final = frozenset({"isinstance", "type"})



def _index(root: cst.CSTNode) -> tuple[dict[int, cst.CSTNode], dict[str, list[cst.Name]]]:
    """The parent of every node under ``root``, and its names by identifier."""
    parents: dict[int, cst.CSTNode] = {}
    names: dict[str, list[cst.Name]] = {}
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            names.setdefault(node.value, []).append(node)
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    return parents, names


def aliases(module: cst.Module) -> ImportAliases:
    """The import aliases of the module's own body (imports under ``if``/``try`` included, those
    inside functions and classes not: walking every statement of a large file costs more than
    the fix it serves)."""
    imports: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = list(reversed(module.body))
    while stack:
        node = stack.pop()
        if type(node) is cst.SimpleStatementLine:
            imports.extend(small for small in node.body if (type(small) is cst.Import or type(small) is cst.ImportFrom))
        elif type(node) is cst.If or type(node) is cst.Try or type(node) is cst.Else or type(node) is cst.ExceptHandler or type(node) is cst.Finally:
            for part in (getattr(node, name, None) for name in ("body", "orelse", "handlers", "finalbody")):
                if type(part) is cst.IndentedBlock:
                    stack.extend(reversed(part.body))
                elif isinstance(part, (cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally)):
                    stack.append(part)
                elif isinstance(part, (list, tuple)):
                    stack.extend(reversed(part))
    return ImportAliases(imports)


def _is_text(node: cst.BaseExpression) -> bool:
    return type(node) is cst.SimpleString or type(node) is cst.ConcatenatedString or type(node) is cst.FormattedString


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
    parents, names = _index(function.node)
    walker = _UseWalker(parents, aliases(facts.module))
    pending, seen = [key], {key}
    while pending:
        name = pending.pop()
        for node in names.get(name, ()):
            role = _role(node, parents)
            if role == "global":
                walker.escape()
            elif role == "load":
                for follow in walker.climb(node, name):
                    if follow not in seen:
                        seen.add(follow)
                        pending.append(follow)
    return Uses(walker.escapes, walker.number_only and not walker.escapes, walker.one_element)


def _names_in(target: cst.BaseExpression) -> list[cst.Name]:
    if type(target) is cst.Name:
        return [target]
    if type(target) is cst.Tuple or type(target) is cst.List:
        return [name for element in target.elements for name in _names_in(element.value)]
    if type(target) is cst.StarredElement:
        return _names_in(target.value)
    return []


def _role(node: cst.Name, parents: dict[int, cst.CSTNode]) -> str:
    """"load", "store", "global" (named by global/nonlocal) or "other" (an attribute's name...)."""
    parent = parents.get(id(node))
    if type(parent) is cst.Attribute and parent.attr is node:
        return "other"
    if type(parent) is cst.Arg and parent.keyword is node:
        return "other"
    if type(parent) is cst.Param or type(parent) is cst.FunctionDef or type(parent) is cst.ClassDef or type(parent) is cst.ImportAlias or type(parent) is cst.AsName or type(parent) is cst.Del:
        return "store"
    if type(parent) is cst.NameItem:
        return "global"
    current: cst.CSTNode = node
    while type(parent) is cst.Element or type(parent) is cst.StarredElement or type(parent) is cst.Tuple or type(parent) is cst.List:
        current, parent = parent, parents.get(id(parent))
    if type(parent) is cst.AssignTarget and parent.target is current:
        return "store"
    if (type(parent) is cst.AugAssign or type(parent) is cst.AnnAssign or type(parent) is cst.NamedExpr) and parent.target is current:
        return "store"  # ``key += x`` reads and rebinds key itself: a number does the same
    if (type(parent) is cst.For or type(parent) is cst.CompFor) and parent.target is current:
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
            if type(parent) is cst.BinaryOperation:
                if type(parent.operator) is cst.Modulo and _is_text(parent.left):
                    self.one_element = True  # "%.3f" % x
                    return
            elif type(parent) is cst.UnaryOperation:
                if type(parent.operator) is cst.Not:
                    self.one_element = True
                    return
            elif type(parent) is cst.BooleanOperation or type(parent) is cst.Comparison or type(parent) is cst.ComparisonTarget:
                pass
            elif type(parent) is cst.If or type(parent) is cst.While or type(parent) is cst.Assert:
                self.one_element = True  # the truth of a tensor needs one element
                return
            elif type(parent) is cst.IfExp:
                if current is parent.test:
                    self.one_element = True
                    return
            elif type(parent) is cst.FormattedStringExpression:
                if parent.format_spec:
                    self.one_element = True  # f"{x:.3f}" formats a tensor's item, a float alike
                return
            elif type(parent) is cst.Arg:
                call = self._argument(parent)
                if call is None:
                    return
                parent = call
            elif type(parent) is cst.Attribute:
                self.number_only = False  # a method or attribute of the tensor
                grand = self.parents.get(id(parent))
                called = type(grand) is cst.Call and grand.func is parent
                attribute = parent.attr.value
                if (called and attribute in vocab.DETACHING_METHODS) or (not called and attribute in vocab.DETACHING_ATTRIBUTES):
                    return
                if called:
                    assert grand is not None
                    parent = grand
            elif type(parent) is cst.Subscript:
                self.number_only = False
                if current is not parent.value:
                    return
            elif type(parent) is cst.Index or type(parent) is cst.SubscriptElement or type(parent) is cst.Slice:
                self.number_only = False  # used as an index
                return
            elif (type(parent) is cst.AugAssign or type(parent) is cst.AnnAssign) and parent.target is current:
                return  # ``key[i] += v``: writes into it
            elif type(parent) is cst.Assign or type(parent) is cst.AnnAssign or type(parent) is cst.AugAssign:
                yield from self._assigned(parent, name)
                return
            elif type(parent) is cst.For and parent.iter is current:
                self.number_only = False
                yield from (n.value for n in _names_in(parent.target))  # each item is derived from it
                return
            elif type(parent) is cst.AssignTarget or type(parent) is cst.Del:
                return  # ``key[i] = v``, ``del key[i]``: writes into it, from the function itself
            elif type(parent) is cst.Expr:
                return
            elif type(parent) is cst.Element or type(parent) is cst.DictElement or type(parent) is cst.Tuple or type(parent) is cst.List or type(parent) is cst.Set or type(parent) is cst.Dict:
                self.number_only = False
            else:  # return, yield, lambda, comprehension, for, with, await, starred...
                self.escape()
                return
            current = parent

    def _argument(self, arg: cst.Arg) -> Optional[cst.Call]:
        """The call to go on climbing from when its result is computed from the argument."""
        call = self.parents.get(id(arg))
        if type(call) is not cst.Call:
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
        elif type(call.func) is cst.Name and name in vocab.PASSING_BUILTINS:
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
            if type(target) is cst.Name:
                if target.value != name:
                    yield target.value  # follow the new name
            else:
                self.escape()  # into an attribute, a container slot, a tuple: out of sight
