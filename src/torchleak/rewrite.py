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
from torchleak.analysis.tensors import TensorEvidence
from torchleak.analysis.values import Kind
from torchleak.rule import Edit, Fix

Safety = Literal["safe", "unsafe"]

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


def _is_text(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def evidence(facts: FileFacts, function: Function) -> TensorEvidence:
    return TensorEvidence(facts, function, tree(facts).aliases)


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


def detach_values(facts: FileFacts, evidence: TensorEvidence, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``node`` with ``.detach()`` on every attached value in it. Dict, tuple, list and set
    literals are entered (``{...}.detach()`` raises at run time). None when an attached value is
    not known to be one tensor (a model's output may be a tuple or a dict, ``out.unbind(0)`` is
    a tuple), cannot be detached in place (``*xs``, a comprehension), or nothing in it is attached."""
    changed = False

    def visit(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        nonlocal changed
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
        if not evidence.tensor(value):
            return None  # ``.detach()`` on a tuple, a dict or a number raises
        changed = True
        return method_call(value, "detach")

    result = visit(node)
    return result if result is not None and changed else None


def _maybe_attached(facts: FileFacts, node: cst.BaseExpression) -> bool:
    recorded = facts.values.get(id(node))
    return recorded is None or recorded.attached


def accumulation_fix(facts: FileFacts, event: Accumulation, *, item: bool = True) -> Optional[Fix]:
    """``acc += loss`` becomes ``acc += loss.item()`` where that provably changes nothing but
    the leak, else ``acc += loss.detach()`` (safe where the accumulator stays in the function).
    No fix where ``loss`` is not known to be a tensor: ``.detach()`` on a float raises."""
    value = event.value_node
    if isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp)):
        return None
    known = evidence(facts, event.function)
    if not known.tensor(value):
        return None
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
        and used.number_only
        and (known.one_element(value) or used.one_element)
    ):
        return Fix(
            "safe",
            f"accumulate '{code(method_call(value, 'item'))}' instead of '{code(value)}'",
            (Edit(value, method_call(value, "item")),),
            reason=f"'{code(value)}' is a one-element tensor and '{target.value}' is only ever read as a number",
        )
    new = method_call(value, "detach")
    if stays:
        reason = f"'{code(value)}' is a tensor and '{code(owner)}' never leaves the function"
    else:
        reason = f"'{code(owner)}' leaves the function (returned, stored or an attribute): a caller may backward through it"
    return Fix(
        "safe" if stays else "unsafe",
        f"accumulate '{code(new)}' instead of '{code(value)}'",
        (Edit(value, new),),
        reason=reason,
    )


def store_fix(facts: FileFacts, event: Union[Store, Accumulation]) -> Optional[Fix]:
    """``history.append(out)`` becomes ``history.append(out.detach())``; literals are entered."""
    if isinstance(event, Accumulation):
        return accumulation_fix(facts, event, item=False)
    new = detach_values(facts, evidence(facts, event.function), event.value_node)
    if new is None:
        return None
    stays = not uses(facts, event.function, event.key).escapes
    if stays:
        reason = f"every value detached is a tensor and '{event.key}' never leaves the function"
    else:
        reason = f"'{event.key}' leaves the function (returned, stored or an attribute): a caller may backward through it"
    return Fix(
        "safe" if stays else "unsafe",
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


#: The one-line detach of a carried state, by the shapes it can hold at the top of an iteration:
#: (shapes, statement, whether those shapes are all known). Forms that fit several shapes come
#: last; a state that may hold something else (a list, a dict) gets no fix.
_STATE_FORMS: Final[tuple[tuple[frozenset[str], str, bool], ...]] = (
    (frozenset({"tensor"}), "{key} = {key}.detach()", True),
    (frozenset({"tuple"}), "{key} = tuple(v.detach() for v in {key})", True),
    (frozenset({"none", "tensor"}), "{key} = {key}.detach() if {key} is not None else None", True),
    (frozenset({"none", "tuple"}), "{key} = tuple(v.detach() for v in {key}) if {key} is not None else None", True),
    # A number (``center = 0``) becomes a tensor of the same value: the type changes.
    (frozenset({"number", "tensor"}), "{key} = {torch}.as_tensor({key}).detach()", False),
    # Not known: None, one tensor or a tuple of tensors (a GRU's or an LSTM's state) all work.
    (
        frozenset({"none", "tensor", "tuple", "unknown"}),
        "{key} = tuple(v.detach() for v in {key}) if isinstance({key}, tuple) else {key}.detach() if {key} is not None else None",
        False,
    ),
)


def state_detach(facts: FileFacts, function: Function, loop: Loop, key: str) -> Optional[tuple[cst.BaseSmallStatement, bool]]:
    """``h = h.detach()``, or the form that fits every shape ``h`` can hold when an iteration
    starts (None, an LSTM's ``(h, c)``, a number), and whether those shapes are all known."""
    shapes: set[str] = set(evidence(facts, function).state_shapes(loop, key))
    guessed = "unknown" in shapes or "tuple?" in shapes
    if "tuple?" in shapes:
        shapes = (shapes - {"tuple?"}) | {"tuple"}
    torch = tree(facts).aliases.local_name("torch")
    for fits, form, known in _STATE_FORMS:
        if shapes <= fits and ("{torch}" not in form or torch is not None):
            statement = cst.parse_statement(form.format(key=key, torch=torch) + "\n")
            assert isinstance(statement, cst.SimpleStatementLine)
            return statement.body[0], known and not guessed
    return None


def state_fix_edit(facts: FileFacts, function: Function, loop: Loop, key: str) -> Optional[tuple[Edit, bool, str]]:
    """Detach ``key`` at the top of every iteration of ``loop``: the edit, whether the state's
    shape is certain, and the statement's text."""
    anchor = loop_top(loop)
    made = state_detach(facts, function, loop, key) if anchor is not None else None
    if anchor is None or made is None:
        return None
    statement, certain = made
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
        reason = f"what '{binding.key}' holds when an iteration starts is not known for certain (None, a tensor, a tuple, a number?)"
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


def _is_optimizer(facts: FileFacts, node: cst.BaseExpression) -> bool:
    """An optimizer by its value (``torch.optim.SGD(...)``); by its name only where the file
    says nothing of it (``scheduler.step()`` must not get a ``zero_grad``, which it lacks)."""
    value = facts.values.get(id(node))
    if value is not None and value.kind is Kind.OPTIMIZER:
        return value.cls != "GradScaler"
    owner = last_identifier(node)
    return (value is None or value.kind is Kind.UNKNOWN) and owner is not None and bool(vocab.OPTIMIZER_NAME.match(owner))


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
        if not _is_optimizer(facts, func.value):
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
