"""The interpreter: an ordered walk over each function of a file that decides which values are
on the autograd graph (graph state x kind, per tuple element), where loops are and what they
do, and what each statement does with attached values (accumulate, store, backward, rebind).

Decisions come from evidence in the file, in this order: the torch knowledge table
(constructors, losses, ``.item()``, grad-mode managers); the file's own classes and
functions, each summarised once (return value per element as a function of the arguments,
effects on ``self``, globals and arguments, backward/step/forward inside) and applied at
every call site; usage evidence gathered by a first pass (a value that is backwarded is
attached, a callable whose result is backwarded or whose ``.parameters()`` are read is a
module). Identifier patterns are a last resort. The walk is flow-sensitive in statement
order and deliberately simple: branches run one after the other, loop bodies run once, and
a call it cannot classify yields an unknown value, which no rule reports.
"""

from __future__ import annotations

import ast
import functools
import typing
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Optional, Union

import libcst as cst

from torchleak.analysis import memo
from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.facts import (
    CallSite,
    Accumulation,
    key_prefixes,
    BackwardCall,
    Binding,
    FileFacts,
    Function,
    GradReset,
    Loop,
    LoopNode,
    Store,
)
from torchleak.analysis.names import ImportAliases, dotted, last_identifier, method_on_self
from torchleak.analysis.prefilter import called_under_no_grad
from torchleak.analysis.settings import Settings
from torchleak.analysis.summaries import ClassSummary, Effect, EffectKind, Externals, Summary, argument_position, class_key
from torchleak.analysis.values import (
    CLASS_UNION,
    classes_of,
    join_returned,
    ATTACHED,
    LEAF,
    DETACHED,
    DETACHED_TENSOR,
    HOLDS_NO_GRAPH,
    NONE,
    NUMBER,
    UNKNOWN,
    Kind,
    State,
    Value,
    any_entry,
    combine,
    join,
    keyed,
    parameter,
    substitute,
    tensor,
    tuple_of,
)

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)
_MODULE_SCOPE = "<module>"
#: Bases that make a class in the file a module (its instances are called for a forward pass).
_MODULE_BASES = ("Module", "Model", "LightningModule", "PreTrainedModel", "Sequential")


def merge(*values: Value) -> Value:
    """The value of an expression computed from ``values``: attached if any input is."""
    return combine(*values)


def is_true(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and type(arg.value) is cst.Name and arg.value.value == "True"


def _is_false(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and type(arg.value) is cst.Name and arg.value.value == "False"


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def target_key(node: cst.BaseExpression) -> Optional[str]:
    """The name that owns a target: ``stats`` for ``stats["loss"]``, ``self.cache`` for itself,
    ``self.data`` for ``self.data.setdefault(key, [])`` (the list it holds for ``key``)."""
    while True:
        if type(node) is cst.Subscript:
            node = node.value
        elif (
            type(node) is cst.Call and type(node.func) is cst.Attribute
            and node.func.attr.value in ("setdefault", "get", "__getitem__")
        ):
            node = node.func.value
        else:
            return dotted(node)


def _expression_children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The sub-expressions of common nodes, without libcst's generic (and slow) ``children``.

    Dispatched on the exact type: libcst's classes are ABCs, so each ``isinstance`` against one
    costs a call into ``ABCMeta.__instancecheck__`` (these helpers run for every expression
    node of a file, twice). Whitespace, dots, commas and brackets hold no expression, so leaving
    them out changes nothing for the callers.
    """
    if type(node) is cst.Call:
        return [node.func, *(arg.value for arg in node.args)]
    if type(node) is cst.Name or type(node) in _LEAF_EXPRESSIONS:
        return ()
    if type(node) is cst.Attribute:
        return (node.value, node.attr)
    if type(node) is cst.BinaryOperation:
        return (node.left, node.right)
    if type(node) is cst.Subscript:
        parts: list[cst.CSTNode] = [node.value]
        for element in node.slice:
            if type(element.slice) is cst.Index:
                parts.append(element.slice.value)
            elif type(element.slice) is cst.Slice:
                parts.extend(p for p in (element.slice.lower, element.slice.upper, element.slice.step) if p is not None)
        return parts
    if type(node) is cst.Tuple or type(node) is cst.List or type(node) is cst.Set:
        return [element.value for element in node.elements]
    if type(node) is cst.UnaryOperation:
        return (node.expression,)
    if type(node) is cst.Comparison:
        return [node.left, *(c.comparator for c in node.comparisons)]
    if type(node) is cst.Arg:
        return (node.value,)
    if type(node) is cst.Dict:
        return node.elements
    if type(node) is cst.DictElement:
        return (node.key, node.value)
    if type(node) is cst.IfExp:
        return (node.body, node.test, node.orelse)
    return node.children


_LEAF_EXPRESSIONS = frozenset({cst.Integer, cst.Float, cst.SimpleString, cst.Ellipsis, cst.Imaginary})


def _child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes ``node.children`` holds (in another order), less whitespace, comments,
    punctuation and operators, read straight from the node's fields: ``children`` runs
    libcst's visitor machinery on every node, about five times slower, which made the walks of
    loop bodies the largest part of the analysis. Tokens are more than half of a tree's nodes
    and hold no expression or statement, so leaving them out changes nothing for the callers."""
    kind = type(node)
    names = _NODE_FIELDS.get(kind)
    if names is None:
        names = _NODE_FIELDS[kind] = tuple(each.name for each in fields(node) if not _holds_only_tokens(each.type))
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                what = _NODE_KIND.get(type(item))
                if what is None:
                    what = _node_kind(type(item))
                if what == 1:
                    found.append(item)
        else:
            what = _NODE_KIND.get(kind)
            if what is None:
                what = _node_kind(kind)
            if what == 1:
                found.append(value)
    return found


#: libcst's classes that hold no expression or statement: whitespace, comments, punctuation, operators.
_TOKEN_CLASSES: Final = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Comment, cst.Newline,
    cst.Comma, cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
    cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
)


def _holds_only_tokens(annotation: object) -> bool:
    """A field's declared type admits only tokens, strings and sentinels (``lpar``,
    ``whitespace_after_func``, ``comma``): ``_child_nodes`` need not read it. Anything else,
    a forward reference included, is read."""
    if isinstance(annotation, type):
        return not issubclass(annotation, cst.CSTNode) or issubclass(annotation, _TOKEN_CLASSES)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return True
    if origin is typing.Union or origin is Sequence:
        return all(_holds_only_tokens(argument) for argument in typing.get_args(annotation))
    return False


def _node_kind(kind: type) -> int:
    """0: not a node; 1: a node ``subtree`` visits; 2: a token it skips (memoised per class:
    libcst's classes are ABCs, whose ``issubclass`` is slow)."""
    what = _NODE_KIND[kind] = 0 if not issubclass(kind, cst.CSTNode) else 2 if issubclass(kind, _TOKEN_CLASSES) else 1
    return what


#: Per libcst class: its fields, and what ``_node_kind`` says of it (memoised: both are slow).
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_KIND: dict[type, int] = {}


def _by_class(test: Callable[[type], bool]) -> Callable[[type], bool]:
    """``test`` of a class, memoised per class (``issubclass`` against libcst's ABCs is slow)."""
    answers: dict[type, bool] = {}

    def answer(kind: type) -> bool:
        found = answers.get(kind)
        if found is None:
            found = answers[kind] = test(kind)
        return found

    return answer


_is_small_statement = _by_class(lambda kind: issubclass(kind, cst.BaseSmallStatement))
#: Where ``own_returns`` stops: nested scopes, and expressions (which hold no statement).
_opens_scope_or_expression = _by_class(lambda kind: issubclass(kind, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseExpression)))


def mentions(node: cst.CSTNode, *, through_detach: bool = True) -> set[str]:
    """The dotted names (and their prefixes) an expression reads, without side effects; with
    ``through_detach=False``, not what it reads only through ``.detach()``/``.item()`` (no
    graph flows from those into the result). A new set at each call (callers add to it)."""
    if not memo.depth:
        return _mentions(node, through_detach)
    cache = _MENTIONS if through_detach else _MENTIONS_CUT
    entry = cache.get(id(node))
    if entry is None or entry[0] is not node:
        entry = cache[id(node)] = (node, frozenset(_mentions(node, through_detach)))
    return set(entry[1])


_MENTIONS = memo.node_cache()
_MENTIONS_CUT = memo.node_cache()


def _mentions(node: cst.CSTNode, through_detach: bool) -> set[str]:
    return _names_read(node, None if through_detach else _is_cut)


def _is_cut(node: cst.CSTNode) -> bool:
    """``x.detach()``, ``x.item()``: no graph flows out of it."""
    return type(node) is cst.Call and _is_cutting_call(node)


def _names_read(node: cst.CSTNode, skip: Optional[Callable[[cst.CSTNode], bool]]) -> set[str]:
    """The dotted names (and their prefixes) under ``node``, not looking into what ``skip`` says."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if skip is not None and skip(current):
            continue
        if type(current) is cst.Name:
            found.add(current.value)  # (``dotted`` and ``key_prefixes`` of a bare name: itself)
            continue
        if type(current) is cst.Attribute:
            key = dotted(current)
            if key is not None:
                found.update(key_prefixes(key))
                continue
        if type(current) in _COMPREHENSIONS:
            found |= _comprehension_reads(current, skip)  # type: ignore[arg-type]
            continue
        stack.extend(_expression_children(current))
    return found


_COMPREHENSIONS: Final = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


#: The largest ``maxlen`` of a deque taken as a short window (a smoothed meter's 20 values);
#: a queue of 256 hard negatives, or a replay memory of 10,000 transitions, keeps growing for
#: as many steps, each holding a graph.
_SHORT_WINDOW: Final = 50


def _bounded_deque(value: cst.BaseExpression, method: cst.FunctionDef) -> bool:
    """``deque(maxlen=20)``, ``deque(maxlen=window_size)`` with ``window_size=20`` a default of
    ``method``: a container of at most a few items, whatever is appended."""
    if type(value) is not cst.Call or last_identifier(value.func) != "deque":
        return False
    limit = keyword(value, "maxlen")
    positional = [arg for arg in value.args if arg.keyword is None and not arg.star]
    given = limit.value if limit is not None else positional[1].value if len(positional) >= 2 else None
    if type(given) is cst.Name:
        default = next((param.default for param in method.params.params if param.name.value == given.value), None)
        given = default
    if type(given) is not cst.Integer:
        return False
    return int(given.value.replace("_", ""), 0) <= _SHORT_WINDOW


def _comprehension_reads(
    node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp],
    skip: Optional[Callable[[cst.CSTNode], bool]],
    read: Optional[Callable[[cst.CSTNode], set[str]]] = None,
) -> set[str]:
    """What a comprehension reads from its function: what it iterates, and what its element
    and conditions read besides the names its ``for`` clauses bind, which live only inside it
    (``{k: v.to(device) for k, v in t.items()}`` reads ``t`` and ``device``, not a ``k`` the
    function binds elsewhere)."""
    bound: set[str] = set()
    found: set[str] = set()
    clause: Optional[cst.CompFor] = node.for_in
    inner: list[cst.CSTNode] = [node.key, node.value] if type(node) is cst.DictComp else [node.elt]  # type: ignore[union-attr]
    reads: Callable[[cst.CSTNode], set[str]] = read or (lambda part: _names_read(part, skip))
    while clause is not None:
        found |= {name for name in reads(clause.iter) if name.split(".", 1)[0] not in bound}
        bound |= {name for name in _names_read(clause.target, None) if "." not in name}
        inner += [condition.test for condition in clause.ifs]
        clause = clause.inner_for_in
    for part in inner:
        found |= {name for name in reads(part) if name.split(".", 1)[0] not in bound}
    return found


#: In ``Evidence.argument_classes``: a module whose class the file does not show.
_SOME_MODULE = "<module>"
#: In ``Evidence.argument_classes``: a loss function (``nn.MSELoss()``, ``F.cross_entropy``).
_SOME_LOSS = "<loss function>"
#: In ``Evidence.argument_classes``, before a class: a list of objects of that class.
_LIST_OF: Final = "[]"


def _with_grad_enabled(module: Value, enabled: bool) -> Value:
    """A module after ``requires_grad_(enabled)``: frozen, its output is attached only if its
    input is (as for a parameter-free module). ``cls`` marks it as a module (``nn.ReLU()``
    has none), "" when the class is not known."""
    return Value(State.DETACHED, Kind.MODULE if enabled else Kind.FUNCTION_MODULE, cls=module.cls or "")


def _indexes_own_modules(loop: cst.For) -> bool:
    """``for i in range(n): x = self.quantizers[i](x)``: the body calls the object's own modules
    one by one with the loop's index (one forward pass, not a loop over batches)."""
    targets = mentions(loop.target)

    def own_module(node: cst.BaseExpression) -> bool:
        if type(node) is not cst.Subscript or not node.slice:
            return False
        owner = dotted(node.value)
        return owner is not None and owner.startswith("self.") and bool(mentions(node.slice[0]) & targets)

    aliases: set[str] = set()  # ``quantizer = self.quantizers[i]``
    calls: list[cst.Call] = []
    for current in subtree(loop.body):
        if type(current) is cst.Assign and own_module(current.value):
            aliases |= {key for target in current.targets for key in mentions(target.target)}
        if type(current) is cst.Call:
            calls.append(current)
    for call in calls:
        func = call.func
        while type(func) is cst.Attribute:
            func = func.value  # ``self.quantizers[i].from_codes(...)``, ``quantizer.decode(...)``
        if own_module(func) or (type(func) is cst.Name and func.value in aliases):
            return True
    return False


def _calls_module_method(func: cst.BaseExpression) -> bool:
    """``build(...).train().requires_grad_(False)``: a chain through ``.train()``/``.eval()``,
    which only modules have."""
    node = func.value if type(func) is cst.Attribute else func
    while type(node) is cst.Call and type(node.func) is cst.Attribute:
        if node.func.attr.value in ("train", "eval"):
            return True
        node = node.func.value
    return False


#: In-place methods that give a tensor new values and keep its autograd history.
_ZEROING: Final = frozenset({"zero_", "fill_"})


def _chain_root(node: cst.BaseExpression, methods: frozenset[str]) -> Optional[str]:
    """The object a chain of ``methods`` returns or updates: ``sampler`` for
    ``sampler.eval().to(device)``, ``buf`` for ``buf.mul_(m)`` (the receiver of ``.add_``)."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in methods:
        node = node.func.value
    return dotted(node)


def _module_output(value: Value) -> Value:
    """A forward's summarised result with what stays unknown taken as attached (module output)."""
    if value.elements is not None:
        return tuple_of([_module_output(element) for element in value.elements]) if value.kind is Kind.TUPLE else replace(
            value, state=State.ATTACHED if value.state is State.UNKNOWN else value.state
        )
    if value.state is State.UNKNOWN and value.kind in (Kind.UNKNOWN, Kind.TENSOR):
        return replace(value, state=State.ATTACHED, params=frozenset())
    return value


def _forward_output(returns: Value, bound: dict[int, Value]) -> Value:
    """What a module call gives, from its forward's summary: as ``_module_output``, except that an
    element of a returned tuple computed only from the forward's parameters keeps what the call's
    arguments give (``return loss, n_correct`` with ``n_correct`` from ``(pred == labels) * mask``:
    no graph when the mask given has none)."""
    if returns.kind is Kind.TUPLE and returns.elements is not None:
        return tuple_of([
            substitute(element, bound) if element.state is State.UNKNOWN and element.params and element.kind in (Kind.UNKNOWN, Kind.TENSOR)
            else _module_output(substitute(element, bound))
            for element in returns.elements
        ])
    return _module_output(substitute(returns, bound))


def _element_owner(node: cst.BaseExpression) -> Optional[str]:
    """The container an object is read from: ``self.meters`` for ``self.meters[k]``,
    ``self.meters.setdefault(k, Meter())`` and ``self.meters.get(k)``."""
    if type(node) is cst.Subscript:
        inner = node.value
    elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("setdefault", "get"):
        inner = node.func.value
    else:
        return None
    return dotted(inner) or _element_owner(inner)  # ``self.stats[split][name]``: nested containers


def _passed_at(call: cst.Call, position: Optional[int], keyword: str) -> Optional[cst.BaseExpression]:
    """What ``call`` passes for the parameter ``keyword``, by keyword or at ``position`` among
    its plain positional arguments; None when it passes nothing there."""
    named = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)
    if named is not None:
        return named
    plain = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return plain[position] if position is not None and 0 <= position < len(plain) else None


def grad_inputs_given(call: BackwardCall) -> list[cst.BaseExpression]:
    """What a backward differentiates with respect to, as the call writes it: the ``inputs`` of
    ``autograd.grad``, or what a helper's call passes to the parameters its grads take."""
    node = call.node
    if type(node) is not cst.Call:
        return []
    if call.kind == "grad":
        inputs = grad_inputs_argument(node)
        return [inputs] if inputs is not None else []
    summary = call.callee
    if call.kind != "call" or summary is None or summary.grad_inputs is None:
        return []
    return [argument for index in summary.grad_inputs for argument in [argument_at(node, summary, index)] if argument is not None]


def grad_inputs_argument(node: cst.Call) -> Optional[cst.BaseExpression]:
    """The ``inputs`` argument of ``torch.autograd.grad(outputs, inputs)``."""
    inputs = keyword(node, "inputs")
    positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
    if inputs is None and len(positional) > 1:
        inputs = positional[1]
    return inputs.value if inputs is not None else None


def _holds_other_graphs(context: _FileContext, cls: str, summary: Summary, reset: str) -> bool:
    """Whether an object of the file's class ``cls`` keeps, besides the attributes ``summary``
    resets, an attribute that some method of the class binds to a value with graph."""
    if cls not in context.classes or any(effect.kind != "reset" for effect in summary.effects):
        return True  # a class the file does not show, or a method that also keeps something
    cleared = {effect.target for effect in summary.effects if effect.kind == "reset"} | {reset}
    return any(
        binding.key.startswith("self.") and binding.value.attached and binding.key not in cleared
        for function in context.facts.functions
        if function.cls == cls
        for binding in function.bindings
    )


def _is_stub(definition: cst.FunctionDef) -> bool:
    """An abstract method: only a docstring, ``pass``, ``...`` or ``raise NotImplementedError``."""
    for statement in _body(definition.body):
        if type(statement) is not cst.SimpleStatementLine:
            return False
        for small in statement.body:
            if type(small) is cst.Pass:
                continue
            if type(small) is cst.Expr and (type(small.value) is cst.SimpleString or type(small.value) is cst.ConcatenatedString or type(small.value) is cst.Ellipsis):
                continue
            if type(small) is cst.Raise and small.exc is not None and "NotImplementedError" in (
                dotted(small.exc.func if type(small.exc) is cst.Call else small.exc) or ""
            ):
                continue
            return False
    return True


def _star_positions(names: Sequence[str]) -> tuple[Optional[int], Optional[int]]:
    """Where a summary's ``*args`` and ``**kwargs`` are among its parameters (None: absent)."""
    star = next((index for index, name in enumerate(names) if name.startswith("*") and not name.startswith("**")), None)
    keywords = next((index for index, name in enumerate(names) if name.startswith("**")), None)
    return star, keywords


def argument_at(node: cst.Call, summary: Summary, index: int) -> Optional[cst.BaseExpression]:
    """The argument a call passes for the summary's parameter at ``index`` (by keyword, else by
    position, ``self`` counted where the call binds it); None for ``*args``/``**kwargs``, which
    collect several."""
    names = summary.parameters
    name = names[index] if index < len(names) else ""
    if name.startswith("*"):
        return None
    keyword_argument = next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == name), None)
    if keyword_argument is not None:
        return keyword_argument
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    position = index - (1 if _binds_self(node, summary) else 0)
    return positional[position] if 0 <= position < len(positional) else None


def _flag_off(node: cst.Call, summary: Summary, index: int) -> bool:
    """The call leaves the flag parameter at ``index`` off: not passed, or passed ``False`` or
    ``None`` (unknown when it unpacks ``*args``/``**kwargs``)."""
    if any(arg.star for arg in node.args):
        return False
    given = argument_at(node, summary, index)
    return given is None or type(given) is cst.Name and given.value in ("False", "None")


def _binds_self(node: cst.Call, summary: Summary) -> bool:
    """The call passes ``self`` implicitly: ``obj.method(x)``, or ``obj(x)`` for ``forward``/``__call__``."""
    names = summary.parameters
    if not names or names[0] not in ("self", "cls"):
        return False
    # ``Worker(env, net)`` runs ``__init__`` with the new object as ``self``
    return type(node.func) is cst.Attribute or summary.name.rsplit(".", 1)[-1] in ("forward", "__call__", "__init__")


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it (statements and nested functions included), less the
    whitespace, comments, punctuation and operators under it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if type(current) is not cst.Name:  # (a name holds only tokens)
            stack.extend(_child_nodes(current))


def _builds_or_is_unused(callers: frozenset[str]) -> bool:
    """Not called in the file, or only while objects are built (``_make_layer`` from ``__init__``):
    ``callers`` are the functions of the file that call the method."""
    found = {caller.rsplit(".", 1)[-1] for caller in callers}
    # ``forward`` of a subclass calling the base class's ``_forward_gru``: one forward pass.
    return found <= {"__init__", "__post_init__", "setup", "build", "reset_parameters", "forward", "__call__"}


#: A module's attributes that are its parameters (``nn.Linear``'s, ``nn.Embedding``'s, ...).
_PARAMETER_ATTRIBUTES: Final = frozenset({"weight", "bias"})

#: Kinds of value an attribute holds that are objects the forward calls, not state it computes with.
_OBJECT_KINDS: Final = frozenset({Kind.MODULE, Kind.OPTIMIZER, Kind.LOSS_FUNCTION, Kind.FUNCTION_MODULE, Kind.LOADER, Kind.INSTANCE})

#: Members every module or tensor has: reading them does not tell one class of the file from another.
_GENERIC_MEMBERS: Final = (
    vocab.MODULE_SELF_METHODS | vocab.MODULE_PLAIN_METHODS
    | frozenset({"training", "forward", "__call__", "__init__", "device", "dtype", "shape", "size", "data", "grad",
                 "T", "config", "name", "weight", "bias", "module", "item", "detach", "numel", "dim", "ndim",
                 "requires_grad", "grad_fn", "is_cuda", "tolist", "numpy", "argmax", "any", "all", "std", "var"})
)


#: What any dict answers to: read alone, they name no class of the file.
_MAPPING_METHODS: Final = frozenset({"update", "items", "keys", "values", "get", "pop", "setdefault", "copy", "clear"})


class _Body:
    """What one walk of a function's body (nested functions included) finds: the attributes it
    reads on each plain name (``model.layers``, ``model.sample()``, ``self.hidden``), its calls,
    and the plain names it calls (``model(x)`` calls ``model``)."""

    __slots__ = ("attributes_read", "calls", "names_called")

    def __init__(self, definition: cst.FunctionDef) -> None:
        attributes: dict[str, set[str]] = {}
        calls: list[cst.Call] = []
        stack: list[cst.CSTNode] = [definition.body]
        while stack:  # ``subtree``'s order, without its generator (a third of a tree is names)
            current = stack.pop()
            if type(current) is cst.Name:
                continue
            if type(current) is cst.Attribute:
                owner = current.value
                if type(owner) is cst.Name:
                    attributes.setdefault(owner.value, set()).add(current.attr.value)
                elif type(owner) is cst.Attribute and type(owner.value) is cst.Name and owner.value.value == "self":
                    # ``self.memory.add(...)``: what an attribute is used for says its class too
                    attributes.setdefault(f"self.{owner.attr.value}", set()).add(current.attr.value)
            elif type(current) is cst.Call:
                calls.append(current)
            stack.extend(_child_nodes(current))
        self.attributes_read = attributes
        self.calls = calls
        self.names_called = frozenset(call.func.value for call in calls if type(call.func) is cst.Name)


class _FileIndex:
    """What does not change from one walk of a file to the next, computed once per file: every
    statement of the module (nested bodies included, in order), the top-level statement that
    holds each function definition, the import aliases, and ``_Body`` per definition (keyed by
    ``id``: the tree outlives the walks)."""

    def __init__(self, module: cst.Module) -> None:
        self.statements: list[cst.CSTNode] = []
        self.def_tops: dict[int, cst.CSTNode] = {}
        for top in module.body:
            for nested in iter_statements([top]):  # the order of ``iter_statements(module.body)``
                self.statements.append(nested)
                if type(nested) is cst.FunctionDef:
                    self.def_tops[id(nested)] = top
        self._bodies: dict[int, _Body] = {}
        self._detaching: dict[int, bool] = {}
        self.aliases = ImportAliases(s for s in self.statements if type(s) is cst.Import or type(s) is cst.ImportFrom)
        self.constants = _module_constants(module, self.statements)

    def body(self, definition: cst.FunctionDef) -> _Body:
        found = self._bodies.get(id(definition))
        if found is None:
            found = self._bodies[id(definition)] = _Body(definition)
        return found

    def detaching_helper(self, definition: cst.FunctionDef) -> bool:
        """``_detaching_helper`` of a definition, once per file (its calls are many, in both walks)."""
        found = self._detaching.get(id(definition))
        if found is None:
            found = self._detaching[id(definition)] = _detaching_helper(definition)
        return found


def _module_constants(module: cst.Module, statements: list[cst.CSTNode]) -> frozenset[str]:
    """Module-level names bound once, at the top level, to a literal number (``label_dim = 10``,
    ``LR, BATCH = 1e-3, 32``) and declared ``global`` nowhere: read in a function, a number."""
    bound: dict[str, int] = {}
    numbers: set[str] = set()
    # (any other binding of the name makes it a variable: a block at the top level, an import,
    # a def, ``global`` in a function)
    rebound: set[str] = set()
    for top in module.body:
        if type(top) is not cst.SimpleStatementLine:
            rebound.update({top.name.value} if isinstance(top, (cst.FunctionDef, cst.ClassDef)) else _bound_names(top))
            continue
        for small in top.body:
            if type(small) is cst.Assign:
                for target in small.targets:
                    _count_bound(target.target, small.value if len(small.targets) == 1 else None, bound, numbers)
            elif type(small) is cst.AnnAssign and small.value is not None:
                _count_bound(small.target, small.value, bound, numbers)
            elif type(small) in (cst.AugAssign, cst.Import, cst.ImportFrom):
                rebound.update(_bound_names(small))
    for statement in statements:
        if type(statement) is cst.SimpleStatementLine:
            rebound.update(item.name.value for small in statement.body if type(small) is cst.Global for item in small.names)
    return frozenset(name for name in numbers if bound.get(name) == 1 and name not in rebound)


def _count_bound(target: cst.BaseExpression, value: Optional[cst.BaseExpression], bound: dict[str, int], numbers: set[str]) -> None:
    """Count each name ``target`` binds (in ``bound``), and note those bound to a written number."""
    if type(target) is cst.Name:
        bound[target.value] = bound.get(target.value, 0) + 1
        if value is not None and _literal_number(value):
            numbers.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        elements = target.elements
        values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
        for index, element in enumerate(elements):
            paired = values[index].value if values is not None and len(values) == len(elements) else None
            _count_bound(element.value, paired, bound, numbers)


def _plain_number(node: cst.BaseExpression) -> bool:
    """``0.1``, ``loss.item()``, ``float(x)``: a number, no tensor."""
    if _literal_number(node):
        return True
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("item", "tolist"):
        return True
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("float", "int")


def _literal_number(node: cst.BaseExpression) -> bool:
    """``10``, ``-1e-3``, ``2 ** 10``, ``64 * 64``: a number written out."""
    if type(node) in (cst.Integer, cst.Float):
        return True
    if type(node) is cst.UnaryOperation:
        return _literal_number(node.expression)
    if type(node) is cst.BinaryOperation:
        return _literal_number(node.left) and _literal_number(node.right)
    return False


def _bound_names(node: cst.CSTNode) -> set[str]:
    """Every plain name a statement binds, nested bodies included (a conservative superset)."""
    found: set[str] = set()
    for child in subtree(node):
        if type(child) in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr) and type(child.target) is cst.Name:  # type: ignore[attr-defined]
            found.add(child.target.value)  # type: ignore[attr-defined]
        elif type(child) in (cst.FunctionDef, cst.ClassDef):
            found.add(child.name.value)  # type: ignore[attr-defined]
        elif type(child) is cst.AssignTarget or type(child) is cst.For:
            found.update(n.value for n in subtree(child.target) if type(n) is cst.Name)
        elif type(child) is cst.AsName:
            found.update(n.value for n in subtree(child.name) if type(n) is cst.Name)
        elif type(child) is cst.ImportAlias:
            found.add((dotted(child.name) or "").split(".")[0])
    return found


def filled_with_graphs(function: Function) -> set[str]:
    """The attributes of its object a method stores attached tensors into
    (``self.outputs['std'] = std`` in a forward): the container then holds a graph for its
    readers (``agent.actor.outputs['std']``), one step's at least."""
    return {
        store.key[len("self."):] for store in function.stores
        if store.key.startswith("self.") and store.key.count(".") == 1 and store.value.attached and not store.in_callee
    }


def _attributes_set_from(definition: cst.FunctionDef, name: str) -> list[str]:
    """The attributes ``definition`` sets plainly from the parameter ``name`` (``self.memory = buffer``)."""
    found = []
    for statement in definition.body.body:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Assign and type(small.value) is cst.Name and small.value.value == name:
                for target in small.targets:
                    attribute = target.target
                    if type(attribute) is cst.Attribute and type(attribute.value) is cst.Name and attribute.value.value == "self":
                        found.append(attribute.attr.value)
    return found


def _annotated_class(param: cst.Param) -> str:
    """``C`` for ``x: C`` and ``x: "C"`` (else "")."""
    if param.annotation is None:
        return ""
    annotation = param.annotation.annotation
    if type(annotation) is cst.SimpleString:
        written = _string_value(annotation)
        if isinstance(written, str):
            return written
    return dotted(annotation) or ""


def _names_a_data_type(node: cst.BaseExpression, aliases: ImportAliases) -> bool:
    """``np.ndarray``, ``float``, or a tuple of such: a type whose values hold no graph."""
    if type(node) is cst.Tuple:
        return bool(node.elements) and all(_names_a_data_type(element.value, aliases) for element in node.elements)
    name = aliases.qualify(node) or ""
    return name.startswith(("numpy.", "np.")) or name in ("int", "float", "bool", "str", "complex")


def _never_true(test: cst.BaseExpression) -> bool:
    """``False``, ``0``, ``None``, or an ``and`` starting with one: a branch that never runs."""
    while type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        test = test.left
    return (type(test) is cst.Name and test.value in ("False", "None")) or (type(test) is cst.Integer and test.value == "0")


def _default_class(param: cst.Param) -> str:
    """``C`` for ``x=C(...)``: a default built from a class (of the file or the project)."""
    if type(param.default) is cst.Call:
        return dotted(param.default.func) or ""
    return ""


def _is_alias(node: cst.BaseExpression) -> bool:
    """A name, an attribute, or a tuple or list of them: binding it copies no value."""
    if type(node) is cst.Tuple or type(node) is cst.List:
        return all(_is_alias(element.value) for element in node.elements)
    return (type(node) is cst.Name or type(node) is cst.Attribute) and dotted(node) is not None


def _unpacked(value: Value, targets: Sequence[cst.BaseElement], index: int) -> Value:
    """What the target at ``index`` of a starred unpacking (``loss, *mems = out``) receives:
    targets before the star take their elements, the star takes the rest as a list."""
    star = next(i for i, element in enumerate(targets) if type(element) is cst.StarredElement)
    if value.elements is None:
        return value.part()
    if index < star:
        return value.element(index)
    if index > star:
        return value.element(index - len(targets))
    rest = value.sliced(star)
    if value.open_tail or len(targets) == star + 1:
        return replace(rest, kind=Kind.CONTAINER)
    return value.part()  # a star between fixed elements: kept coarse


def _record(cls: str, fields: tuple[str, ...], node: cst.Call, arguments: list[Value]) -> Value:
    """An instance of a record class (a dataclass, or a class keeping its keyword arguments as
    attributes), each field with what it was given (a default holds no graph); without known
    fields, the keywords given, or one value for all of them."""
    given: dict[str, Value] = {}
    positional = [value for arg, value in zip(node.args, arguments) if arg.keyword is None and not arg.star]
    if any(arg.star for arg in node.args) or len(positional) > len(fields):
        return Value(State.ATTACHED, Kind.INSTANCE, cls=cls)
    given.update(zip(fields, positional))
    for arg, value in zip(node.args, arguments):
        if arg.keyword is not None:
            given[arg.keyword.value] = value
    if not fields and given:
        fields = tuple(given)  # ``Batch(logits=logits, act=act)`` of an attribute dict
    if not fields or set(given) - set(fields):
        return Value(State.ATTACHED, Kind.INSTANCE, cls=cls)
    elements = tuple(given.get(name, DETACHED) for name in fields)
    return Value(State.ATTACHED, Kind.INSTANCE, cls=cls, keys=fields, elements=elements)


def _parameter_names(definition: cst.FunctionDef) -> set[str]:
    return {param.name.value for param in (*definition.params.posonly_params, *definition.params.params, *definition.params.kwonly_params)}


def _keeps_its_keywords(init: Optional[cst.FunctionDef]) -> bool:
    """An ``__init__(self, ..., **kwargs)`` that stores what it is given as attributes, whatever
    their names (``self.__dict__[k] = v`` or ``setattr(self, k, v)`` over ``kwargs.items()``, or
    ``self.__dict__.update(kwargs)``): an attribute dict such as tianshou's ``Batch``."""
    if init is None or init.params.star_kwarg is None:
        return False
    for node in subtree(init.body):
        if type(node) is cst.Call:
            func = dotted(node.func)
            if func == "setattr" and node.args and dotted(node.args[0].value) == "self" and type(node.args[1].value) is not cst.SimpleString:
                return True
            if func == "self.__dict__.update":
                return True
        elif type(node) is cst.Subscript and dotted(node.value) == "self.__dict__":
            return True
    return False


def _named_tuple_class(statement: cst.CSTNode, aliases: ImportAliases) -> Optional[ClassInfo]:
    """``Transition = namedtuple("Transition", "obs action hidden")`` (or ``NamedTuple("T",
    [("obs", Tensor), ...])``): a class whose constructor keeps its arguments as fields."""
    assign = single_assign(statement)
    if assign is None or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name or type(assign.value) is not cst.Call:
        return None
    call = assign.value
    qualified = aliases.qualify(call.func) or dotted(call.func) or ""
    if qualified not in ("collections.namedtuple", "typing.NamedTuple", "namedtuple", "NamedTuple") or len(call.args) < 2:
        return None
    info = ClassInfo(assign.targets[0].target.value, [qualified])
    names = call.args[1].value
    fields: list[str] = []
    if type(names) is cst.SimpleString:
        fields = str(_string_value(names)).replace(",", " ").split()
    elif type(names) in (cst.List, cst.Tuple):
        for element in names.elements:  # type: ignore[attr-defined]
            item = element.value.elements[0].value if type(element.value) is cst.Tuple and element.value.elements else element.value
            if type(item) is not cst.SimpleString:
                return None
            fields.append(str(_string_value(item)))
    info.fields = tuple(fields)
    info.class_attributes.update(fields)
    info.holds_arguments = True
    return info


#: Class decorators that make the constructor keep its arguments as fields.
_FIELD_CLASS_DECORATORS: Final = frozenset({"dataclass", "define", "frozen", "mutable", "attrs", "s"})


def _detaching_helper(definition: cst.FunctionDef) -> bool:
    """A function that calls itself on the parts of what it is given and detaches the tensors it
    reaches: its branch for a tensor (``if torch.is_tensor(value):``) returns it detached or as
    a number (``to_python_scalars``), or, named for detaching (``detach_tree``,
    ``repackage_hidden``), it calls ``.detach()``. The summary cannot follow the recursion."""
    calls = [node for node in subtree(definition.body) if type(node) is cst.Call]
    if not any(type(call.func) is cst.Name and call.func.value == definition.name.value for call in calls):
        return False
    name = definition.name.value.lower()
    if ("detach" in name or "repackage" in name) and any(
        type(call.func) is cst.Attribute and call.func.attr.value == "detach" for call in calls
    ):
        return True
    for node in subtree(definition.body):
        if type(node) is cst.If and tensor_tested(node.test, dotted) is not None:
            returned = [statement.value for statement in iter_statements(_body(node.body)) if type(statement) is cst.Return]
            if returned and all(value is not None and _detached_expression(value) for value in returned):
                return True
    return False


def tensor_tested(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[str]:
    """The name ``torch.is_tensor(x)`` or ``isinstance(x, torch.Tensor)`` tests, else None
    (``qualify`` names a callee: through the file's imports, or as written)."""
    if type(test) is not cst.Call or not test.args:
        return None
    name = qualify(test.func) or ""
    if name in ("torch.is_tensor", "is_tensor") and len(test.args) == 1:
        return dotted(test.args[0].value)
    if name == "isinstance" and len(test.args) == 2:
        kind = qualify(test.args[1].value) or dotted(test.args[1].value) or ""
        if kind in ("torch.Tensor", "Tensor", "torch.nn.Parameter"):
            return dotted(test.args[0].value)
    return None


def _detached_expression(node: cst.BaseExpression) -> bool:
    """``x.detach().item()``, ``x.detach().cpu()``, ``float(x)``: no graph comes out of it."""
    if type(node) is not cst.Call:
        return False
    func = node.func
    if type(func) is cst.Name:
        return func.value in ("float", "int")
    if type(func) is not cst.Attribute:
        return False
    if func.attr.value in vocab.TO_NUMBER or func.attr.value in ("detach", "numpy"):
        return True
    return func.attr.value in vocab.RESHAPING_METHODS and _detached_expression(func.value)  # (``.detach().cpu()``)


def _grown(container: Value, method: str, value: Value) -> Value:
    """A list with known elements after ``container.<method>(value)``: its length is no longer
    known (``append`` adds ``value`` as an open tail, other methods put values anywhere)."""
    if container.kind is not Kind.CONTAINER or container.elements is None:
        return container
    if method != "append":
        return replace(container, elements=None, open_tail=False)
    if container.open_tail:
        return replace(container, elements=(*container.elements[:-1], join(container.elements[-1], value)))
    return replace(container, elements=(*container.elements, value), open_tail=True)


def _literal(node: cst.BaseExpression) -> object:
    """The value of a string or integer literal; None for anything else."""
    if type(node) is cst.SimpleString:
        return _string_value(node)
    if type(node) is cst.Integer:
        return node.evaluated_value
    return None


def _string_value(node: cst.SimpleString) -> Union[str, bytes]:
    """``node.evaluated_value``, remembered per literal text: libcst runs ``ast.literal_eval``
    (a compile) at every read, and the walks read the same few keys (``"loss"``) again and again."""
    return _evaluated_string(node.value)


@functools.lru_cache(maxsize=4096)
def _evaluated_string(text: str) -> Union[str, bytes]:
    # What ``ast.literal_eval`` gives for one string token, without the nested functions it
    # defines at each call (reference cycles the collector would have to find).
    expression = ast.parse(text, mode="eval").body
    if type(expression) is ast.Constant and isinstance(expression.value, (str, bytes)):
        return expression.value
    value: Union[str, bytes] = ast.literal_eval(text)
    return value


def _literal_key(node: cst.Subscript, constants: Mapping[str, Optional[str]]) -> Optional[str]:
    """``"loss"`` for ``d["loss"]`` (or ``d[LOSS]`` with ``LOSS = "loss"`` at module level);
    None for any other index."""
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return _string_key(node.slice[0].slice.value, constants)
    return None


def _string_key(node: cst.BaseExpression, constants: Mapping[str, Optional[str]]) -> Optional[str]:
    """The string a dict key expression always is: a literal, or a module constant bound once to one."""
    if type(node) is cst.SimpleString:
        return str(_string_value(node))
    if type(node) is cst.Name:
        return constants.get(node.value)
    return None


_DICT_READS = frozenset({"copy", "get", "pop", "values", "items", "keys"})


def _dict_read(receiver: Value, method: str, node: cst.Call) -> Value:
    """A read of a dict with literal keys: ``d.get("acc")`` is that entry, ``d.values()`` and
    ``d.items()`` hold what any entry holds, ``d.keys()`` strings."""
    if method == "copy":
        return receiver
    if method == "keys":
        return Value(State.DETACHED, Kind.CONTAINER)
    if method in ("get", "pop"):
        first = node.args[0].value if node.args and not node.args[0].keyword else None
        if type(first) is cst.SimpleString:
            return receiver.entry(str(_string_value(first)))
        return any_entry(receiver)
    inner = any_entry(receiver)
    return Value(inner.state, Kind.CONTAINER, inner.double_backward, params=inner.params)


def _constant_start(node: cst.Subscript) -> Optional[int]:
    """``k`` for ``x[k:]`` (0 for ``x[:]``) with a non-negative integer literal ``k``."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return None
    part = node.slice[0].slice
    if part.upper is not None or part.step is not None:
        return None
    if part.lower is None:
        return 0
    return int(part.lower.value) if type(part.lower) is cst.Integer else None


def _concatenated(left: Value, right: Value) -> Value:
    """``left + right`` for a list whose elements are known and another list (or something
    unknown): the known elements keep their positions, the rest follows as an open tail."""
    assert left.elements is not None
    tail = right.elements if right.kind is Kind.CONTAINER and right.elements is not None else (right.part(),)
    open_tail = right.open_tail if right.kind is Kind.CONTAINER and right.elements is not None else True
    if left.open_tail:
        elements: tuple[Value, ...] = (*left.elements[:-1], join(left.elements[-1], *tail))
        open_tail = True
    else:
        elements = left.elements + tuple(tail)
    inner = tuple_of(elements)
    return Value(inner.state, Kind.CONTAINER, inner.double_backward, inner.elements, params=inner.params, open_tail=open_tail)


def _switches_on_a_variable(node: cst.BaseExpression) -> bool:
    """``torch.set_grad_enabled(is_train)``: grad mode decided at run time."""
    return type(node) is cst.Call and last_identifier(node.func) == "set_grad_enabled" and bool(node.args) and not (
        isinstance(node.args[0].value, cst.Name) and node.args[0].value.value in ("True", "False")
    )


def _backwards_in(body: cst.CSTNode) -> bool:
    return any(
        type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in vocab.BACKWARD_METHODS
        for node in subtree(body)
    )


def _slot_read_into(body: cst.CSTNode, leaf: cst.BaseExpression, target: cst.Subscript) -> Optional[cst.Assign]:
    """The assignment that binds ``leaf`` in the function from the slot itself (``oldval, cnt =
    self.name2val[key], self.name2cnt[key]`` before ``self.name2val[key] = oldval * cnt / (cnt +
    1) + val / (cnt + 1)``, the running mean of OpenAI's logger; ``new = (1 - d) * p + d *
    self.shadow[k]`` before ``self.shadow[k] = new.clone()``): the update reads the slot through a
    local, and that assignment is where it is computed."""
    while type(leaf) is cst.Call and type(leaf.func) is cst.Attribute and leaf.func.attr.value in _COPYING_METHODS and not leaf.args:
        leaf = leaf.func.value  # ``new.clone()`` stores what ``new`` holds
    if type(leaf) is not cst.Name:
        return None
    for node in subtree(body):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        bound, value = node.targets[0].target, node.value
        if type(bound) is cst.Name and bound.value == leaf.value and any(_reads_slot(part, target) for part in [value, *arithmetic_leaves(value)]):
            return node
        if type(bound) is cst.Tuple and type(value) is cst.Tuple and len(bound.elements) == len(value.elements):
            if any(
                type(name.value) is cst.Name and name.value.value == leaf.value and _reads_slot(given.value, target)
                for name, given in zip(bound.elements, value.elements)
            ):
                return node
    return None


def _weighted_by_a_count(statement: cst.CSTNode, body: cst.CSTNode) -> bool:
    """``m[k] = (seen * m[k] + x * n) / (seen + n)`` with ``seen += n`` beside it: a running mean
    (a total, as an average meter keeps), not a moving average with a fixed decay."""
    assign = single_assign(statement)
    if assign is None:
        return False
    counters = {
        key for node in subtree(body)
        if type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign and (key := dotted(node.target)) is not None
    }
    return bool(counters & mentions(assign.value))


def _bound_once(body: cst.CSTNode, assignment: cst.Assign) -> bool:
    """The names ``assignment`` binds are bound nowhere else in ``body``."""
    names = {name for target in assignment.targets for name in mentions(target.target)}
    return not any(
        node is not assignment and any(names & mentions(target.target) for target in node.targets)
        for node in subtree(body) if type(node) is cst.Assign
    ) and not any(isinstance(node, (cst.For, cst.AugAssign)) and names & mentions(node.target) for node in subtree(body))


#: Methods whose result holds what their receiver holds, as a new tensor.
_COPYING_METHODS: Final = frozenset({"clone", "contiguous", "float", "double", "half"})


def _reads_slot(node: cst.BaseExpression, target: cst.Subscript) -> bool:
    """``d[k]`` or ``d.get(k, 0)`` for the target ``d[k]``; ``buf`` itself for ``buf[:]`` (every
    slot: ``self.stored_mean[:] = self.stored_mean * (1 - m) + mean * m``)."""
    if type(node) is cst.Subscript:
        return node.deep_equals(target)
    if _whole(target) and node.deep_equals(target.value):
        return True
    if (
        type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "get"
        and node.args and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index)
    ):
        return node.func.value.deep_equals(target.value) and node.args[0].value.deep_equals(target.slice[0].slice.value)
    return False


def _by_position(triples: Iterable[tuple[str, int, str]]) -> dict[tuple[str, int], set[str]]:
    """(function, position, class) triples indexed by (function, position)."""
    index: dict[tuple[str, int], set[str]] = {}
    for name, at, cls in triples:
        index.setdefault((name, at), set()).add(cls)
    return index


def _put_in_list(function: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The expressions ``function`` puts in its local list ``name``: ``name = [a, b]``,
    ``name += [a, b]``, ``name.append(a)``, ``name.extend([a, b])``."""
    found: list[cst.BaseExpression] = []

    def elements(value: cst.BaseExpression) -> list[cst.BaseExpression]:
        if type(value) is cst.List or type(value) is cst.Tuple:
            return [element.value for element in value.elements if type(element) is cst.Element]
        if type(value) is cst.ListComp:
            return [value.elt]
        return []

    stack: list[cst.CSTNode] = [function]
    while stack:
        node = stack.pop()
        if type(node) is cst.AugAssign and type(node.target) is cst.Name and node.target.value == name:
            found += elements(node.value)
        elif type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name for t in node.targets):
            found += elements(node.value)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name and node.func.value.value == name:
            if node.func.attr.value in ("append", "insert") and node.args:
                found.append(node.args[-1].value)
            elif node.func.attr.value == "extend" and node.args:
                found += elements(node.args[0].value)
        stack.extend(reversed(node.children))  # (in the order written: a Sequential runs them so)
    return found


def _tested_for_none(test: cst.BaseExpression) -> Optional[str]:
    """``x`` for the test ``x is None``, else None."""
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        if type(comparison.operator) is cst.Is and type(comparison.comparator) is cst.Name and comparison.comparator.value == "None":
            return dotted(test.left)
    return None


def _detaches_own_slot(value_node: cst.BaseExpression, target: cst.Subscript) -> bool:
    """``d[k].detach()`` (``.cpu()`` after it allowed), ``d[k].item()`` or ``float(d[k])`` for
    the target ``d[k]``."""
    if type(value_node) is not cst.Call:
        return False
    func = value_node.func
    if type(func) is cst.Attribute and func.attr.value == "cpu" and not value_node.args and type(func.value) is cst.Call:
        value_node, func = func.value, func.value.func  # ``d[k].detach().cpu()``
    if type(func) is cst.Attribute and func.attr.value in ("detach", "item") and not value_node.args:
        return type(func.value) is cst.Subscript and func.value.deep_equals(target)
    return type(func) is cst.Name and func.value == "float" and len(value_node.args) == 1 and value_node.args[0].value.deep_equals(target)


def _whole(target: cst.Subscript) -> bool:
    """``buf[:]`` or ``buf[...]``: every element."""
    if len(target.slice) != 1:
        return False
    part = target.slice[0].slice
    if type(part) is cst.Slice:
        return part.lower is None and part.upper is None and part.step is None
    return type(part) is cst.Index and type(part.value) is cst.Ellipsis


def _is_cutting_call(call: cst.Call) -> bool:
    return type(call.func) is cst.Attribute and call.func.attr.value in _CUTTING_METHODS


def _graph_mentions(node: cst.CSTNode) -> set[str]:
    """What ``mentions`` finds, less what is read only through ``.detach()``/``.item()`` or a
    detaching attribute (``loss.data``, ``x.shape``): the names whose graph the value can carry."""
    return _names_read(node, lambda current: _is_cut(current) or (
        type(current) is cst.Attribute and current.attr.value in vocab.DETACHING_ATTRIBUTES
    ))


def _number_or_cut(node: cst.CSTNode) -> bool:
    """Nothing of a graph comes out of it: ``x.detach()``, ``x.shape``, ``x.size(0)``, ``len(x)``."""
    if type(node) is cst.Attribute:
        return node.attr.value in vocab.DETACHING_ATTRIBUTES
    if type(node) is not cst.Call:
        return False
    if _is_cut(node):
        return True
    func = node.func
    if type(func) is cst.Attribute:
        return func.attr.value in vocab.NUMBER_METHODS
    return type(func) is cst.Name and func.value in ("len", "isinstance", "type", "id")


def data_mentions(node: cst.CSTNode) -> set[str]:
    """The dotted names an expression computes from, leaving out the callables it calls:
    ``loss`` for ``scaler.scale(loss)`` and for ``loss.mean()``, ``out`` for ``out["loss"]``.
    A new set at each call (callers add to it)."""
    if not memo.depth:
        return _data_mentions(node)
    entry = _DATA_MENTIONS.get(id(node))
    if entry is None or entry[0] is not node:
        entry = _DATA_MENTIONS[id(node)] = (node, frozenset(_data_mentions(node)))
    return set(entry[1])


_DATA_MENTIONS = memo.node_cache()


def _data_mentions(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name or type(current) is cst.Attribute:
            key = dotted(current)
            if key is not None:
                found.add(key)
            elif type(current) is cst.Attribute:
                stack.append(current.value)
            continue
        if type(current) is cst.Call:
            func = current.func
            if _is_cutting_call(current):
                continue  # ``torch.stack(buf).detach()``: no graph flows out of it
            if type(func) is cst.Attribute and (
                not (type(func.value) is cst.Name or type(func.value) is cst.Attribute) or func.attr.value in _TENSOR_METHODS
            ):
                stack.append(func.value)  # ``(a + b).sum()``, ``loss.mean()``: the receiver is data
            stack.extend(arg.value for arg in current.args)
            continue
        if type(current) in _COMPREHENSIONS:
            found |= _comprehension_reads(current, None, _data_mentions)  # type: ignore[arg-type]
            continue
        stack.extend(_expression_children(current))
    return found


def own_returns(definition: cst.FunctionDef) -> list[cst.Return]:
    """The ``return`` statements of a function, not of the functions and classes nested in it
    (in no particular order; asked of every function by each walk, so cached while it runs)."""
    if not memo.depth:
        return _own_returns(definition)
    entry = _RETURNS.get(id(definition))
    if entry is None or entry[0] is not definition:
        entry = _RETURNS[id(definition)] = (definition, _own_returns(definition))
    return list(entry[1])


_RETURNS = memo.node_cache()


def _own_returns(definition: cst.FunctionDef) -> list[cst.Return]:
    found: list[cst.Return] = []
    stack: list[cst.CSTNode] = [definition.body]
    while stack:
        current = stack.pop()
        if type(current) is cst.Return:
            found.append(current)
        elif not _opens_scope_or_expression(type(current)):
            stack.extend(_child_nodes(current))
    return found


def _returned_unchanged(
    function: Function, definition: cst.FunctionDef, parameters: Sequence[str], values: Mapping[int, Value]
) -> frozenset[int]:
    """The positions of parameters that ``definition`` never computes a graph onto: nothing
    attached is bound from them or written back into them (``info["loss"] = tensor_to_scalar(loss)``
    after reading ``loss = info["loss"]`` writes a number), and a ``return`` names them only bare
    (``return best`` or ``return best, n``): a caller's ``info = step(info)`` gets the same object
    back, its entries replaced, not chained onto."""
    returns = [node.value for node in own_returns(definition) if node.value is not None]
    found = set()
    writes: Optional[list[tuple[str, cst.CSTNode]]] = None  # (made once, only for a parameter handed back)
    for index, name in enumerate(parameters):
        if name.startswith("*") or name == "self":
            continue
        handed_back = any(_holds_bare(value, name) for value in returns)
        if handed_back:
            if writes is None:
                writes = _writes_into_names(definition)
            if not _written_without_its_graph(function, name, writes, values):
                continue  # ``info["h"] = torch.tanh(info["h"] + model(x))``: computed onto, in an entry
        if function.flows_to.get(name) and not (
            # read into locals, yet handed back itself and nothing computed from it
            handed_back and not any((function.derived_from({name}) - {name}) & mentions(value) for value in returns)
        ):
            continue
        if any(binding.key == name and name in binding.mentions for binding in function.bindings):
            continue  # ``best.add_(x)`` or ``best = best * 0.9 + x``: computed onto
        if all(name not in mentions(value) or _holds_bare(value, name) for value in returns):
            found.add(index)
    return frozenset(found)


def _returned_attributes(function: Function, definition: cst.FunctionDef) -> frozenset[str]:
    """The attributes of ``self`` what a method returns is computed from, through operations
    that pass a graph on (not ``.item()``, ``.detach()``, a comparison): ``acc_loss`` for ``loss =
    self.acc_loss; return loss / self.norm_term``, nothing for ``return x.ge(self.t).float()``."""
    assigned: dict[str, list[cst.BaseExpression]] = {}
    for binding in function.bindings:
        assign = single_assign(binding.node)
        if assign is not None and len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name:
            assigned.setdefault(binding.key, []).append(assign.value)
    found: set[str] = set()
    seen: set[str] = set()
    stack = [node.value for node in own_returns(definition) if node.value is not None]
    while stack:
        for name in _names_read(stack.pop(), _passes_no_graph):
            if name.startswith("self.") and name.count(".") >= 1:
                found.add(name.split(".")[1])
            elif name not in seen:
                seen.add(name)
                stack.extend(assigned.get(name, ()))
    return frozenset(found)


def _passes_no_graph(node: cst.CSTNode) -> bool:
    """``x.detach()``, ``x.ge(t)``, ``x.shape``, ``float(x)``: no graph comes out of it."""
    if type(node) is cst.Call:
        if type(node.func) is cst.Name:
            return node.func.value in vocab.TO_NUMBER  # ``return float(out)``: a Python number
        return type(node.func) is cst.Attribute and node.func.attr.value in vocab.DETACHING_METHODS
    return type(node) is cst.Attribute and node.attr.value in vocab.DETACHING_ATTRIBUTES


def _writes_into_names(definition: cst.FunctionDef) -> list[tuple[str, cst.CSTNode]]:
    """(name, statement) for each assignment into an entry or attribute of a name, or augmented
    assignment to it, in ``definition``."""
    found: list[tuple[str, cst.CSTNode]] = []
    for node in subtree(definition.body):
        if type(node) is cst.AugAssign:
            key = target_key(node.target)
            if key is not None:
                found.append((key, node))
        elif type(node) is cst.Assign:
            for target in node.targets:
                key = target_key(target.target) if type(target.target) is not cst.Name else None
                if key is not None:
                    found.append((key, node))
    return found


def _written_without_its_graph(function: Function, name: str, writes: list[tuple[str, cst.CSTNode]], values: Mapping[int, Value]) -> bool:
    """What flows out of the parameter ``name`` comes back into it, if at all, only as values
    without graph: every assignment into its entries or attributes is of a number, a detached
    value or something not computed from it; nothing is added into it in place."""
    for key, node in writes:
        if key != name:
            continue
        if type(node) is cst.AugAssign:
            return False
        assert type(node) is cst.Assign
        read = data_mentions(node.value)
        if name not in read and name not in function.sources_of(read):
            continue
        value = values.get(id(node.value))
        if value is None or not (value.detached or value.kind in (Kind.NUMBER, Kind.NONE)):
            return False
    return True


def _holds_bare(value: cst.BaseExpression, name: str) -> bool:
    """``value`` reads ``name`` only as itself: ``name``, or a tuple with ``name`` among its
    elements and no other element computed from it."""
    if type(value) is cst.Name:
        return value.value == name
    return type(value) is cst.Tuple and any(type(e.value) is cst.Name and e.value.value == name for e in value.elements) and all(
        type(e.value) is cst.Name or name not in mentions(e.value) for e in value.elements
    )


def _retain_parameter(function: Function, parameters: Sequence[str]) -> Optional[int]:
    """The position of the parameter every backward of ``function`` passes as ``retain_graph``."""
    positions = set()
    for call in function.backwards:
        argument = keyword(call.node, "retain_graph") if isinstance(call.node, cst.Call) and call.kind != "call" else None
        name = argument.value.value if argument is not None and isinstance(argument.value, cst.Name) else None
        if name is None and isinstance(call.node, cst.Call) and call.kind != "call":
            # ``def manual_backward(self, loss, *args, **kwargs): loss.backward(*args, **kwargs)``
            forwarded = next((arg.value for arg in call.node.args if arg.star == "**" and isinstance(arg.value, cst.Name)), None)
            name = f"**{forwarded.value}" if forwarded is not None else None
        if name is None or name not in parameters:
            return None
        positions.add(parameters.index(name))
    return positions.pop() if len(positions) == 1 else None


def _accumulated_and_returned(function: Function, definition: cst.FunctionDef, parameters: Sequence[str]) -> frozenset[int]:
    """The positions of parameters that ``definition`` adds a graph-attached value to and
    returns bare (``total += loss`` then ``return total``, or ``return total, n``)."""
    returns = [node.value for node in own_returns(definition) if node.value is not None]
    found = set()
    for index, name in enumerate(parameters):
        if name.startswith("*") or name == "self" or not any(event.key == name for event in function.accumulations):
            continue
        if returns and all(_holds_bare(value, name) for value in returns):
            found.add(index)
    return frozenset(found)


def _attribute_flows(function: Function) -> list[tuple[str, str, bool]]:
    """(source, target, through values) for each attribute of ``self`` that ``function``
    computes another attribute of ``self`` from, directly or through its locals."""
    found = []
    for source in function.flows_to:
        if not source.startswith("self."):
            continue
        through_values = reach(function.data_flows_to, source)
        for target in reach(function.flows_to, source):
            if target != source and target.startswith("self."):
                found.append((source, target, target in through_values))
    return found


def reach(flows: dict[str, set[str]], start: str) -> set[str]:
    """Every name ``start`` flows into through ``flows``."""
    seen, stack = {start}, [start]
    while stack:
        for target in flows.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def _strip_access(node: cst.BaseExpression) -> cst.BaseExpression:
    """``model(x, h)`` for ``model(x, h)[1]`` or ``model(x, h).hidden``."""
    while type(node) is cst.Subscript or type(node) is cst.Attribute:
        node = node.value
    return node


def _elementwise_sum(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The operands of ``tuple(map(sum, zip(totals, losses)))`` (or ``list(...)``, or the bare
    ``map``): an element-by-element ``totals + losses`` of two sequences."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("tuple", "list") and len(node.args) == 1:
        node = node.args[0].value
    if not (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "map" and len(node.args) == 2):
        return None
    mapper, zipped = node.args[0].value, node.args[1].value
    if not (type(mapper) is cst.Name and mapper.value == "sum" and type(zipped) is cst.Call):
        return None
    if not (type(zipped.func) is cst.Name and zipped.func.value == "zip" and all(arg.star == "" for arg in zipped.args)):
        return None
    return [arg.value for arg in zipped.args]


def _sequence_operands(node: cst.BaseExpression) -> set[int]:
    """``id`` of each operand of an element-wise sum in ``node`` (or in a branch of it)."""
    if type(node) is cst.IfExp:
        return _sequence_operands(node.body) | _sequence_operands(node.orelse)
    return {id(operand) for operand in _elementwise_sum(node) or ()}


def _method_sum(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The tensor and the value added to it in ``sums.index_add(0, bucket, losses)`` or
    ``total.add(loss)``: ``sums + losses`` written as one call."""
    if type(node) is not cst.Call or type(node.func) is not cst.Attribute or dotted(node.func.value) == "torch":
        return None
    position = vocab.SUMMING_METHODS.get(node.func.attr.value)
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if position is None or len(positional) != position + 1:
        return None
    return [node.func.value, positional[position]]


def additive_terms(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``a``, ``b * c`` and ``d`` for ``a + b * c - d`` (and both branches of a conditional)."""
    if type(node) is cst.BinaryOperation and (type(node.operator) is cst.Add or type(node.operator) is cst.Subtract):
        return additive_terms(node.left) + additive_terms(node.right)
    if type(node) is cst.IfExp:
        return additive_terms(node.body) + additive_terms(node.orelse)
    operands = _elementwise_sum(node) or _method_sum(node)
    if operands is not None:
        return [term for operand in operands for term in additive_terms(operand)]
    return [node]


def zipped_with(clause: cst.CompFor, key: str) -> set[str]:
    """The names a comprehension's ``for t, l in zip(key, other)`` binds to the entries of ``key``."""
    iterable, target = clause.iter, clause.target
    if not (type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.func.value == "zip" and type(target) is cst.Tuple):
        return set()
    if len(iterable.args) != len(target.elements):
        return set()
    return {
        element.value.value for element, arg in zip(target.elements, iterable.args)
        if type(element.value) is cst.Name and dotted(arg.value) == key
    }


def _reads_entry_of(node: cst.BaseExpression, key: str) -> bool:
    """``totals[k]`` or ``totals.get(k, 0.0)``: an entry of ``key``."""
    if type(node) is cst.Subscript:
        return dotted(node.value) == key
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "get" and dotted(node.func.value) == key


def single_assign(statement: Optional[cst.CSTNode]) -> Optional[cst.Assign]:
    """The assignment a statement is (alone on its line), or None."""
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
        statement = statement.body[0]
    return statement if type(statement) is cst.Assign else None


def decays_itself(statement: Optional[cst.CSTNode], target: str) -> bool:
    """``target = target * m + x * (1 - m)``: an assignment whose sum scales the target's old
    value (a moving average), unlike a running total (``target = target + x``)."""
    assign = single_assign(statement)
    if assign is None or len(assign.targets) != 1:
        return False
    written: cst.BaseExpression = assign.targets[0].target
    if type(written) is cst.Subscript:
        written = written.value  # ``Z[idx] = a * Z[idx] + (1 - a) * p``: a moving average per slot
    if dotted(written) != target:
        return False
    lerped = lerp_operands(assign.value)
    if lerped is not None:
        return any(dotted(operand) == target for operand in lerped)  # ``ema = ema.lerp(x, 0.1)``
    return decaying_increment(assign.value, target)


def decaying_increment(value: cst.BaseExpression, target: str) -> bool:
    """A term of ``value`` scales the target's own value: ``avg += (1 - d) * (x - avg)`` (or
    ``avg = d * avg + (1 - d) * x``) is a moving average rather than a running total."""
    return any(
        type(term) is cst.BinaryOperation and type(term.operator) in (cst.Multiply, cst.Divide) and (
            target in data_mentions(term)
            # (a slot's old value read with ``.get``: ``ema[k] = 0.9 * ema.get(k, 0) + 0.1 * x``)
            or any(type(node) is cst.Call and _reads_entry_of(node, target) for node in subtree(term))
        )
        for term in additive_terms(value)
    )


#: The method of an ``accumulate`` effect written ``x = x * m + y * (1 - m)``: a moving average,
#: which carries its input's graph into the next call rather than summing a loss.
DECAYING_SUM: Final = "decay"


def _sum_method(statement: Optional[cst.CSTNode], target: str) -> str:
    return DECAYING_SUM if decays_itself(statement, target) else "="


def _only_rescales(statement: cst.CSTNode, target: str, aliases: ImportAliases) -> bool:
    """An assignment to ``target`` computed from nothing but ``target`` itself (and functions
    an import binds: ``self.alpha / torch.sum(self.alpha)``)."""
    assign = single_assign(statement)
    return assign is not None and all(
        target in key_prefixes(name) or aliases.binds(name.split(".")[0]) for name in data_mentions(assign.value)
    )


def key_positions(callee: Function, store: Store) -> tuple[int, ...]:
    """What the key of a slot ``callee`` writes comes from: the positions of the parameters it
    is computed from (``self.bank[sid] = ...`` for each ``sid`` of its ``scan_ids``), and -1 for
    a counter it advances (``self.buffer[self.position] = ...`` then ``self.position =
    (self.position + 1) % n``): another slot each call, unless a caller gives the same key."""
    if store.method != "[]=" or not store.index_mentions:
        return ()
    parameters = callee.summary.parameters
    given = set(parameters) - {"self", "cls"}
    sources = _key_sources(callee.node, set(store.index_mentions))
    # (or a key computed from such a counter: ``index = reservoir(self.num_seen_examples, n)``
    # with ``self.num_seen_examples += 1``, mammoth's buffer)
    advanced = any(
        binding.key in (store.index_mentions | sources) and binding.key.startswith("self.") and binding.key in binding.mentions
        for binding in callee.bindings
    )
    keyed = sources & given
    return (*([-1] if advanced else []), *sorted(parameters.index(name) for name in keyed))


def _store_positions(callee: Optional[Function], stored: Optional[Store], effect: Effect) -> tuple[int, ...]:
    """``key_positions`` of the callee's store behind ``effect``, else what the effect carried up
    from a deeper helper (``Buffer.add_data``'s reservoir slot, through ``observe``)."""
    return (key_positions(callee, stored) if callee is not None and stored is not None else ()) or effect.keyed


def keyed_per_call(node: cst.Call, summary: Summary, positions: Sequence[int]) -> frozenset[str]:
    """``{"<argument>"}`` when the slot a call's callee writes may differ from call to call: a
    counter, or a key given by an argument that is not a constant (``add_scalar("loss", v)``
    writes one slot every time)."""
    for position in positions:
        if position < 0:
            return frozenset({"<argument>"})
        argument = argument_at(node, summary, position)
        if argument is None or not isinstance(argument, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)):
            return frozenset({"<argument>"})
    return frozenset()


def _key_sources(function: cst.CSTNode, names: set[str]) -> set[str]:
    """The names ``names`` are computed from in ``function``'s code, through assignments and
    ``for`` targets, graph or not: a key needs none (``idx`` of ``for i, idx in
    enumerate(indices.tolist())`` is one of the indices given). A position (``i`` of
    ``enumerate``, of ``range(len(x))``) or a key of a mapping's ``items()`` is the same keys
    every call, so it comes from nothing."""
    feeds: dict[str, set[str]] = {}

    def feed(target: cst.BaseExpression, sources: set[str]) -> None:
        # (a stack, not recursion: a recursive closure is a reference cycle, left to the collector)
        pending = [target]
        while pending:
            current = pending.pop()
            if type(current) is cst.Tuple or type(current) is cst.List:
                pending.extend(element.value for element in current.elements)
            elif type(current) is cst.Name or type(current) is cst.Attribute:
                name = dotted(current)
                if name is not None:
                    feeds.setdefault(name, set()).update(sources)

    for node in subtree(function):
        if type(node) is cst.Assign:
            for assigned in node.targets:
                feed(assigned.target, mentions(node.value))
        elif type(node) is cst.For or type(node) is cst.CompFor:
            iterable, target = node.iter, node.target
            call = iterable if isinstance(iterable, cst.Call) else None
            func = last_identifier(call.func) if call is not None else None
            if func == "range":
                continue
            if call is not None and func == "enumerate" and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and call.args:
                feed(target.elements[1].value, mentions(call.args[0].value))
                continue
            if call is not None and func in ("items", "keys") and isinstance(call.func, cst.Attribute):
                # the keys of a mapping it is given (``metrics.items()``) name the same few
                # slots every call (``"loss"``, ``"acc"``); only the values come from the mapping
                if func == "items" and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                    feed(target.elements[1].value, mentions(call.func.value))
                continue
            feed(target, mentions(iterable))
    found, pending = set(names), list(names)
    while pending:
        for source in feeds.get(pending.pop(), ()):
            if source not in found:
                found.add(source)
                pending.append(source)
    return found


def _resets_on_some_calls(summary: Summary, reset: Effect) -> bool:
    """A reset in a branch its function's stores into the same state are not in
    (``if len(self.losses) % 1000 == 0: self.losses.clear()`` after an append): most calls
    keep what they add."""
    depths = [e.depth for e in summary.effects if e.target == reset.target and e.kind in ("store", "accumulate", "carry")]
    return bool(depths) and reset.depth > min(depths)


def _holds_modules(iterable: Value) -> bool:
    """An ``nn.ModuleList`` (or a list) whose modules the file shows."""
    return iterable.kind in (Kind.MODULE, Kind.CONTAINER) and bool(iterable.elements) and all(
        e.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) for e in iterable.elements or ()
    )


def _objects_of_one_class(value: Value) -> Optional[str]:
    """The class of the file every element of a list of objects (or modules) belongs to
    (``[ClipPrompt(e) for e in embeds]``), or None."""
    if value.kind is not Kind.CONTAINER or not value.elements:
        return None
    classes = {element.cls for element in value.elements}
    if len(classes) != 1 or not all(element.kind in (Kind.INSTANCE, Kind.MODULE) for element in value.elements):
        return None
    return next(iter(classes))


def _iterated_element(iterable: Value) -> Value:
    """What a loop over ``iterable`` binds at each step: one of its modules (``for layer in
    self.layers``), a parameter (``for p in model.parameters()``), or a part of its value."""
    if _holds_modules(iterable):
        return join(*(iterable.elements or ()))
    if iterable.kind is Kind.MODULE and iterable.cls in ("torch.nn.ModuleList", "torch.nn.Sequential") and not iterable.elements:
        # (``self.layers = nn.ModuleList()`` filled by ``append``: a module, of a class not known)
        return Value(State.DETACHED, Kind.MODULE)
    if iterable.leaf and iterable.kind is Kind.CONTAINER:
        return LEAF
    if iterable.elements and _objects_of_one_class(iterable) is not None:
        return join(*iterable.elements)  # ``for prompt in prompts``, a list of objects of one class of the file
    return iterable.part() if iterable.attached or iterable.params else UNKNOWN


def _takes_only_given_arguments(definition: cst.FunctionDef, positional: Sequence[cst.Arg]) -> bool:
    """A method that takes exactly that many positional arguments after ``self``: every
    parameter without a default is given, and none is given beyond its parameters."""
    params = [*definition.params.posonly_params, *definition.params.params][1:]
    required = sum(1 for param in params if param.default is None)
    return required <= len(positional) and (len(positional) <= len(params) or isinstance(definition.params.star_arg, cst.Param))


def keeps_in_one_place(summary: Summary, effect: Effect, graphs: Optional[frozenset[int]] = None) -> bool:
    """The function keeps what ``effect`` keeps of its arguments nowhere else (``graphs``: the
    positions a call gives a graph, when known: ``self.n += batch_size`` beside ``self.sum +=
    loss * batch_size`` keeps no graph of that call)."""
    given = _given(effect) if graphs is None else _given(effect) & graphs
    return bool(given) and sum(1 for other in summary.effects if other.kind == effect.kind and _given(other) & given) == 1


def fixed_at_its_line(summary: Summary, effect: Effect, graphs: Optional[frozenset[int]] = None) -> bool:
    """What the function keeps of its arguments is fixed at the statement that keeps it: kept
    in one place, or each entry of a dict it is given kept one by one (``Effect.per_entry``)."""
    return keeps_in_one_place(summary, effect, graphs) or effect.per_entry


def _fixed_in_imported(summary: Summary, effect: Effect, callee: Optional[Function]) -> str:
    """``utils.py:Logger.log`` for a call of another module's helper that keeps what it is
    given in one place (so that, when nothing else in the project calls it, the fix is that
    line of the helper: ``queries.helper_fixing``); else "". Several keys, separated by
    ``HELPER_SEPARATOR``, when the fix may go in either."""
    if callee is not None or not summary.module:
        return ""
    if effect.where == summary.name:
        # (or a state it carries from what it computes itself: ``ModelEMA.update`` averaging the
        # parameters of the model it is given, with grad)
        return summary.key if fixed_at_its_line(summary, effect) or carries_what_it_computes(effect) else ""
    # a helper further down, in another module (``Agent.step`` handing the loss it computes to
    # ``TrainingStats.add_loss`` of utils.py), that keeps it in one place: that helper, when
    # the call gives nothing of what is kept (else detaching what it passes is the fix, here)
    module = effect.origin.rpartition(":")[0]
    further = module and module != summary.module  # (a helper of the called function's own module: reported at the call)
    candidates = [f"{module}:{effect.where}"] if further and effect.where and _handed_once(summary, effect) and not effect.value.params else []
    if module == summary.module and effect.through_self and effect.where and _handed_once(summary, effect) and keeps_in_one_place(summary, effect):
        # a helper of the called function's own module that keeps, in one place, what the call
        # passes on to it (``update_with_local_losses`` handing each loss to the subclass's
        # ``update_with_all_losses``): that helper's statement, when nothing else in the
        # project runs it (``ProjectIndex.fixed_in_helper`` follows its one caller up)
        candidates.append(f"{module}:{effect.where}")
    if computed_and_handed_on(summary, effect):
        # what the called function computes and hands on to a helper that keeps it
        # (``meters["loss"].update(loss)`` in engine.py's per-batch ``train_step``): its own
        # statement, when that helper is called from elsewhere too
        candidates.append(summary.key)
    return HELPER_SEPARATOR.join(candidates)


def carries_what_it_computes(effect: Effect) -> bool:
    """A state the function carries from a graph it computes itself, of nothing it is given
    (``ModelEMA.update`` averaging, with grad, the parameters of the model it is handed): its
    own statement is the fix, whoever calls it."""
    # (or stores: ``NodeSaliency.update`` appending a saliency it computes with
    # ``autograd.grad(..., create_graph=True)``, which its module reports as kept per batch)
    return effect.kind in ("carry", "store") and not effect.value.params and effect.value.attached


#: Between the keys of ``Accumulation.helper`` (and the others'): the helpers where the fix may
#: go, the first whose module reports it first (``queries.helper_fixing``).
HELPER_SEPARATOR: Final = ";"


def _string_expression(node: cst.BaseExpression) -> bool:
    """A string literal, or one built from literals (``("%10s" * 1 + "%10.4g" * 6)``)."""
    if type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
        return True
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Multiply):
        return _string_expression(node.left) or type(node.operator) is cst.Add and _string_expression(node.right)
    return False


def _list_arity(call: cst.Call, method: str) -> bool:
    """The call could be a list's (or deque's) own method: ``append(x)`` takes one argument and no
    keyword (``stats.append(ids, preds, targets, reduction="batch")`` is some other class's)."""
    if method not in ("append", "extend", "appendleft", "extendleft"):
        return True
    return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star


def _averages_what_it_is_given(average: cst.CSTNode, target: str, callee: Function) -> bool:
    """``self.avg = b * self.avg + (1 - b) * value`` where ``value`` is a parameter, as given:
    the caller can pass it detached. Not a loss the helper computes from what it is given."""
    if type(average) is cst.AugAssign:
        folded = average.value  # (``self.avg += (1 - b) * (value - self.avg)``)
    else:
        assign = single_assign(average)
        if assign is None:
            return True
        folded = assign.value
    parameters = set(callee.summary.parameters)
    operands = [
        leaf for leaf in arithmetic_leaves(folded)
        if dotted(leaf) != target and not isinstance(leaf, (cst.Integer, cst.Float)) and not (dotted(leaf) or "").startswith("self.")
    ]
    return bool(operands) and all(type(leaf) is cst.Name and leaf.value in parameters for leaf in operands)


def _averages_several(summary: Summary) -> bool:
    """The function folds what it is given into more than one moving average."""
    return sum(1 for effect in summary.effects if effect.kind == "accumulate" and effect.method == DECAYING_SUM and effect.value.params) > 1


def computed_and_handed_on(summary: Summary, effect: Effect) -> bool:
    """The function computes what ``effect`` keeps (nothing of its arguments) and hands it to
    the helper that keeps it, once: the fix is at that call, in the function."""
    if effect.kind not in ("store", "accumulate") or effect.value.params or effect.where == summary.name:
        return False
    return _handed_once(summary, effect)


def _handed_once(summary: Summary, effect: Effect) -> bool:
    """``effect`` is the function's only one of its kind by that helper into that target: one
    call hands the helper what it keeps there."""
    return sum(1 for other in summary.effects if (other.kind, other.where, other.target) == (effect.kind, effect.where, effect.target)) == 1


def callee_sum_of_argument(callee: Optional[Function], effect: Effect) -> Optional[Accumulation]:
    """The callee's own statement summing what it is given (``self._sq_sum = self._sq_sum +
    err.pow(2).sum()``), as an event of the callee's, for a call whose fix goes there."""
    if callee is None or effect.where != callee.name:
        return None
    where = callee.effect_nodes.get(id(effect))
    if type(where) is cst.AugAssign:
        return Accumulation(where, 0, None, callee, where.target, effect.target, effect.method or "+=", where.value, effect.value)
    if type(where) is not cst.Assign or len(where.targets) != 1:
        return None
    target = where.targets[0].target
    owner = dotted(target.value) if type(target) is cst.Subscript else dotted(target)
    def kept(part: cst.BaseExpression) -> bool:  # (not the target, nor ``sums.get(k, 0.0)`` of it)
        return dotted(part) != dotted(target) and not (owner is not None and _reads_entry_of(part, owner))

    operands = [leaf for leaf in arithmetic_leaves(where.value) if kept(leaf)]
    if len(operands) > 1:
        operands = [term for term in additive_terms(where.value) if kept(term)]  # ``value * n``, whole
    operand = operands[0] if len(operands) == 1 else where.value
    return Accumulation(where, 0, None, callee, target, effect.target, "=", operand, effect.value)


def callee_hands_on_what_it_computes(callee: Optional[Function], effect: Effect) -> Optional[tuple[cst.CSTNode, cst.Call, cst.BaseExpression]]:
    """The callee's own call handing a deeper keeper something it computes from its arguments
    (``losses_m.update(reduced_loss, n)`` after ``reduced_loss = _reduce_for_log(loss, args)``;
    ``self.metrics.add("log_odds_ratio", torch.mean(ratio))``): that statement, the call and the
    argument. The caller's argument is not what is kept, so the fix (``.item()``) goes there.
    None for a parameter handed on as given, or a loop's entry of one."""
    if callee is None or effect.where == callee.name or not effect.value.params:
        return None
    where = callee.effect_nodes.get(id(effect))
    statement = where.body[0] if type(where) is cst.SimpleStatementLine and len(where.body) == 1 else where
    call = statement.value if type(statement) is cst.Expr else None
    if where is None or type(call) is not cst.Call:
        return None
    given = {callee.summary.parameters[index] for index in effect.value.params if index < len(callee.summary.parameters)}
    assigned = {binding.key for binding in callee.bindings if single_assign(binding.node) is not None}
    handed = [
        arg.value for arg in call.args
        if arg.star == "" and (data_mentions(arg.value) & given or type(arg.value) is cst.Name and arg.value.value in assigned)
    ]
    if len(handed) != 1:
        return None
    value = handed[0]
    if type(value) is cst.Name and (stores_the_parameter(callee, value) or value.value not in assigned):
        return None  # (as given, or a loop's entry of what it is given: ``for key, value in observation.items()``)
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in vocab.PASSING_BUILTINS:
        return None  # ``list(local_losses)``: what it was given, repacked
    return where, call, value


def stores_the_parameter(callee: Function, stored: cst.BaseExpression) -> bool:
    """The helper keeps a parameter as it came (``self.images.append(images)``), not a value it
    computes from one: what the caller passed is what it keeps."""
    return type(stored) is cst.Name and stored.value in callee.summary.parameters


def _kept_by(effect: Effect, callee: Optional[Function]) -> str:
    """The name of the file's helper that keeps what ``effect`` keeps in one place ("" if none)."""
    if callee is None or effect.where != callee.name or not keeps_in_one_place(callee.summary, effect):
        return ""
    return callee.name


def _given(effect: Effect) -> frozenset[int]:
    """The parameters whose values an effect keeps, less the one it keeps them in
    (``running[k] = running.get(k, 0) + v``: ``v``'s, not ``running``'s)."""
    return effect.value.params - {argument_position(effect.target)}


def _does_nothing(summary: Summary) -> bool:
    """A hook's default (``def on_batch_end(self, ...): pass``): no effect, no pass, no result."""
    return not summary.effects and not summary.runs_forward and not summary.calls_backward and summary.returns.kind is Kind.NONE


def _keeps_something(summary: Summary) -> bool:
    """The function stores, sums or carries something into state that outlives the call."""
    return any(effect.kind in ("store", "accumulate", "carry") for effect in summary.effects)


def _keeps_its_arguments(summary: Summary) -> bool:
    """The function stores, sums or carries a value computed from its parameters (other than
    its object) into state that outlives the call."""
    return any(effect.kind in ("store", "accumulate", "carry") and bool(effect.value.params - {0}) for effect in summary.effects)


def _emptied_by_del(target: cst.BaseExpression) -> Optional[str]:
    """``self.states`` for ``del self.states[:]`` (and ``del self.stats[key][:]``); None for
    any other deletion."""
    if type(target) is cst.Subscript and len(target.slice) == 1:
        part = target.slice[0].slice
        if type(part) is cst.Slice and part.lower is None and part.upper is None:
            owner = target.value
            while type(owner) is cst.Subscript:
                owner = owner.value  # ``del self.stats[key][:]``: one of the lists ``self.stats`` keeps
            return dotted(owner)
    return None


def lerp_operands(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The start and end of ``a.lerp(b, w)`` or ``torch.lerp(a, b, w)``: ``a + w * (b - a)``,
    the moving average written as one call."""
    if type(node) is not cst.Call or type(node.func) is not cst.Attribute or node.func.attr.value != "lerp":
        return None
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if dotted(node.func.value) == "torch":
        return positional[:2] if len(positional) >= 2 else None
    return [node.func.value, positional[0]] if positional else None


def arithmetic_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    lerped = lerp_operands(node)
    if lerped is not None:
        return [leaf for operand in lerped for leaf in arithmetic_leaves(operand)]
    if type(node) is cst.BinaryOperation and isinstance(node.operator, _ARITHMETIC):
        return arithmetic_leaves(node.left) + arithmetic_leaves(node.right)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return arithmetic_leaves(node.expression)
    if type(node) is cst.IfExp:
        # ``total = loss if total is None else total + loss``: the first value, or the update
        return arithmetic_leaves(node.body) + arithmetic_leaves(node.orelse)
    operands = _elementwise_sum(node) or _method_sum(node)
    if operands is not None:
        return [leaf for operand in operands for leaf in arithmetic_leaves(operand)]
    return [node]


def iter_statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every statement and small statement, nested bodies included."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if type(node) is cst.SimpleStatementLine:
            stack.extend(reversed(node.body))
            continue
        nested: list[cst.CSTNode] = []
        for name in ("body", "orelse", "handlers", "finalbody", "cases"):
            part = getattr(node, name, None)
            if part is None:
                continue
            if type(part) is cst.IndentedBlock or type(part) is cst.SimpleStatementSuite:
                nested.extend(part.body)
            elif isinstance(part, (list, tuple)):
                nested.extend(part)
            elif isinstance(part, cst.CSTNode):
                nested.append(part)
        stack.extend(reversed(nested))


def _body(node: Union[cst.BaseSuite, cst.CSTNode]) -> Sequence[cst.CSTNode]:
    if type(node) is cst.IndentedBlock or type(node) is cst.SimpleStatementSuite:
        return node.body
    return ()


# --------------------------------------------------------------------------- scopes
@dataclass
class ClassInfo:
    """A class defined in the file: its bases (by name) and its methods."""

    name: str
    bases: list[str]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    is_module: bool = False
    #: Names assigned in the class body (``expansion = 4``): members of the class itself.
    class_attributes: set[str] = field(default_factory=set)
    #: Its constructor keeps every argument as a field (a ``@dataclass``, a ``NamedTuple``).
    holds_arguments: bool = False
    #: The fields such a class declares (``tokens: torch.Tensor``), in order.
    fields: tuple[str, ...] = ()


@dataclass
class Evidence:
    """What a first walk learned about names from how the file uses them."""

    #: (scope, key): called for a forward pass, its ``.parameters()`` read, or its result backwarded.
    modules: set[tuple[str, str]] = field(default_factory=set)
    #: (scope, key, loop): differentiated by a backward call in that loop (``id`` of its node,
    #: 0 outside loops), so it holds a graph where it is bound in that loop.
    backwarded: set[tuple[str, str, int]] = field(default_factory=set)
    #: Functions of the file whose results a caller backwards / reads as a number.
    backwarded_results: set[str] = field(default_factory=set)
    numeric_results: set[str] = field(default_factory=set)
    #: Functions of the file some caller calls.
    called: set[str] = field(default_factory=set)
    #: (scope, key): its value flows into what a backward of the same function differentiates.
    feeds_backward: set[tuple[str, str]] = field(default_factory=set)
    #: (callee, caller) for calls of the file's functions.
    callers: set[tuple[str, str]] = field(default_factory=set)
    #: (function, parameter position, class): a call passes an instance of a class of the file.
    argument_classes: set[tuple[str, int, str]] = field(default_factory=set)
    #: Functions whose walk ran without grad (decorated, framework-run, or called only so).
    no_grad_functions: set[str] = field(default_factory=set)
    #: Functions of the file (``Class.m`` for a method) that a call resolved through its receiver
    #: runs inside a ``with torch.no_grad():`` block (``ddpm.sample(...)`` for ``ddpm: DDPM``).
    called_without_grad: set[str] = field(default_factory=set)
    #: Of ``backwarded_results``, those whose callers backward only some positions of the tuple
    #: they return (``_, meta_loss = learner(x)``: position 1); absent when a caller backwards
    #: the whole result.
    backwarded_positions: dict[str, set[int]] = field(default_factory=dict)
    #: Of ``modules``, those known only because what a call of them returns is itself
    #: backwarded (``loss = loss_fn(batch, out)``): a loss function as much as a model; their
    #: other methods (``loss_fn.prepare(batch)``) given no graph need not run a forward. (Read by
    #: the walk, derived from what ``modules`` counts.)
    called_for_a_backward: set[tuple[str, str]] = field(default_factory=set)
    #: Methods (``QLearner.train``) that keep a graph in their object's state and that another
    #: module of the project calls in a loop: walked as per-batch methods, so that what they
    #: keep is reported where they keep it (the caller's file cannot show this file's line).
    per_batch_by_importers: set[str] = field(default_factory=set)
    #: Functions of the file some call runs with grad enabled: not no-grad because another call is.
    called_with_grad: set[str] = field(default_factory=set)
    #: (callee, ``id`` of the call) for every call of the file's functions: how many places call
    #: each. (Read by the final walk only: left out of ``size``.)
    call_nodes: set[tuple[str, int]] = field(default_factory=set)
    #: Forward hooks (``id`` of their definition) that keep the module's output on the object
    #: that registered them (``self.history[name].append(output.mean())`` in a closure of one of
    #: its methods): walked as per-batch methods, the output attached, like a ``forward``
    #: keeping something on ``self``.
    forward_hooks: set[int] = field(default_factory=set)
    #: Functions (``id`` of their definition) registered as a trainer's per-batch callback
    #: (``trainer.add_callback("on_batch_end", make_history_callback(...))``): walked as
    #: per-batch methods, what they keep outside their call kept every batch.
    batch_callbacks: set[int] = field(default_factory=set)
    #: (scope, key): a tensor handed to an optimizer (``Adam([{"params": [self._xyz]}])``): a
    #: leaf that requires grad, whatever it was made from (Gaussian splats, NeRF codes, an image
    #: optimised in place).
    optimized: set[tuple[str, str]] = field(default_factory=set)

    def size(self) -> int:
        return (
            len(self.modules) + len(self.backwarded) + len(self.backwarded_results) + len(self.numeric_results)
            + len(self.feeds_backward) + len(self.called) + len(self.callers) + len(self.argument_classes) + len(self.no_grad_functions)
            + len(self.called_without_grad) + len(self.called_with_grad) + len(self.per_batch_by_importers)
            + len(self.forward_hooks) + len(self.batch_callbacks) + len(self.optimized)
        )  # (``backwarded_positions`` is read by queries only: no walk needs redoing for it)


@dataclass
class _Observations:
    """Raw uses recorded during a walk, turned into ``Evidence`` between walks."""

    #: (function, key, callee key, callee resolved in the file) for ``key = callee(...)``.
    #: (function, key, callee, resolved, qualified callee, an argument of the call holds a graph)
    call_results: list[tuple[Function, str, str, bool, str, bool]] = field(default_factory=list)
    #: (id of the function, key) -> the position of the callee's result ``key`` unpacks
    #: (``_, meta_loss = learner(x)``), for the call results above that unpack one.
    unpacked_results: dict[tuple[int, str], int] = field(default_factory=dict)
    #: (scope, key) receivers of ``.parameters()`` and friends.
    module_uses: set[tuple[str, str]] = field(default_factory=set)
    #: (function, key) read as a number: ``key.item()``, ``float(key)``, ``print(key)``.
    number_reads: set[tuple[int, str]] = field(default_factory=set)
    #: Functions of the file called somewhere in it.
    called: set[str] = field(default_factory=set)
    #: Methods called from outside their class (``ddpm.sample()`` in a script, not from ``__init__``).
    #: (callee, caller) for calls of the file's functions.
    callers: set[tuple[str, str]] = field(default_factory=set)
    #: Functions of the file called inside a no-grad block of a function that has grad.
    called_without_grad: set[str] = field(default_factory=set)
    #: Functions of the file called with grad enabled somewhere (``_run_one_epoch`` for training,
    #: beside the same call under ``torch.no_grad()`` for validation).
    called_with_grad: set[str] = field(default_factory=set)
    #: (function, parameter position, class): a call passes an instance of a class of the file.
    argument_classes: set[tuple[str, int, str]] = field(default_factory=set)
    #: (callee, ``id`` of the call) for calls of the file's functions.
    call_nodes: set[tuple[str, int]] = field(default_factory=set)
    #: (function, key, loop) that a backward differentiates.
    #: (function, key, loop, whether the key is the backwarded value itself rather than an
    #: input of the call that computes it: ``loss`` in ``loss.mean()``, not ``x`` in ``model(x).sum()``).
    backward_keys: list[tuple[Function, str, int, bool]] = field(default_factory=list)
    #: (function, key, argument) for ``key = helper(argument, ...)`` where the helper calls that parameter.
    called_arguments: list[tuple[Function, str, str]] = field(default_factory=list)
    #: (function, parameter position, evidence keys of the argument) for arguments of calls of
    #: the file's functions that no evidence yet shows to be modules: once this walk's evidence
    #: shows one of the keys to be a module, the position takes one without another walk.
    module_candidates: set[tuple[str, int, tuple[tuple[str, str], ...]]] = field(default_factory=set)
    #: ``Evidence.forward_hooks`` found by this walk -> whether the hook reads ``.training``.
    forward_hooks: dict[int, bool] = field(default_factory=dict)
    #: ``Evidence.batch_callbacks`` found by this walk.
    batch_callbacks: set[int] = field(default_factory=set)
    #: ``Evidence.optimized`` found by this walk.
    optimized: set[tuple[str, str]] = field(default_factory=set)


def _own_assignments(function: cst.FunctionDef) -> Iterator[tuple[str, cst.BaseExpression]]:
    """``(name, value)`` for each ``name = value`` (each name target of it) in the function's
    own statements."""
    for statement in iter_statements(function.body.body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            yield target.target.value, small.value


@dataclass
class _FileContext:
    module: cst.Module
    settings: Settings
    aliases: ImportAliases
    facts: FileFacts
    evidence: Evidence
    observations: _Observations = field(default_factory=_Observations)
    functions: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    #: The class each method belongs to, by ``id`` of its definition.
    owner: dict[int, str] = field(default_factory=dict)
    walked: dict[int, Function] = field(default_factory=dict)
    no_grad_callees: set[str] = field(default_factory=set)
    #: (class, attribute) -> the default of the ``__init__`` parameter it is set from, if a
    #: function's name (``_Walker._default_callable``; None when not).
    default_callables: dict[tuple[str, str], Optional[cst.BaseExpression]] = field(default_factory=dict)
    #: Effects of forward hooks registered in the file (with the storing node): they run on
    #: every forward call.
    hooks: list[tuple[Effect, str, int, cst.CSTNode]] = field(default_factory=list)
    top: Optional[cst.CSTNode] = None
    def_tops: dict[int, cst.CSTNode] = field(default_factory=dict)
    _forward_helpers: dict[str, set[str]] = field(default_factory=dict)
    _members: dict[str, frozenset[str]] = field(default_factory=dict)
    #: What each function's body holds, shared with the file's other walks.
    index: Optional[_FileIndex] = None
    _callers_of: Optional[dict[str, frozenset[str]]] = None
    #: False when the externals are known to be empty (no project): nothing resolves to them.
    imports_from_project: bool = True
    _argument_classes: Optional[dict[tuple[str, int], set[str]]] = None
    _calls_by_id: Optional[dict[int, cst.Call]] = None
    _importer_argument_classes: Optional[dict[tuple[str, int], set[str]]] = None
    _methods_named: Optional[dict[str, list[cst.FunctionDef]]] = None
    _flags: Optional[dict[str, Optional[bool]]] = None
    _calls_by_name: Optional[dict[str, list[cst.Call]]] = None
    _enclosing: Optional[dict[int, cst.FunctionDef]] = None
    _literal_names: dict[bool, frozenset[str]] = field(default_factory=dict)
    _bound_methods: dict[tuple[str, str], bool] = field(default_factory=dict)
    _strings: Optional[dict[str, Optional[str]]] = None
    _global_classes: dict[str, Optional[str]] = field(default_factory=dict)
    _setting_methods: dict[tuple[str, str], list[cst.FunctionDef]] = field(default_factory=dict)
    _assignments_by_class: dict[str, dict[str, list[tuple[cst.FunctionDef, cst.BaseExpression]]]] = field(default_factory=dict)
    #: The classes of other modules a class of the file derives from (``PPO(OnPolicyAlgorithm)``).
    _imported_bases: dict[str, list[ClassSummary]] = field(default_factory=dict)
    in_progress: set[int] = field(default_factory=set)
    #: The walks in progress, outermost first (a method walked when another calls it sees
    #: what its caller's walk has bound so far).
    active: list[Any] = field(default_factory=list)
    seq: int = 0
    #: How many forward passes the walk has run so far (to tell which calls run one).
    forwards_run: int = 0
    #: What the file's imports of its project's other modules bind (``analysis/project.py``).
    externals: Externals = field(default_factory=Externals)
    #: Calls of another module's function that runs a forward, by ``id`` of the call: what
    #: they return is a new graph at every call, whatever their arguments.
    imported_forwards: dict[int, Summary] = field(default_factory=dict)
    #: The summary applied at each call of a function of the file or the project, by ``id``.
    applied: dict[int, Summary] = field(default_factory=dict)
    #: Per method (by id): whether it returns a value computed from an attribute of ``self``.
    returns_own_state: dict[int, bool] = field(default_factory=dict)
    #: ``id`` of arguments no graph flows out of through the call: the callee's result is not
    #: computed from them, or only through ``.detach()`` (``fake`` in ``compute_D_loss(real, fake)``
    #: whose discriminator sees ``fake.detach()``).
    cut_arguments: set[int] = field(default_factory=set)
    #: Calls the walk made up (``functools.partial`` ones called), kept alive while it runs.
    made_calls: list[cst.Call] = field(default_factory=list)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def members(self, name: str) -> frozenset[str]:
        """The attributes (``self.x = ...`` in any method) and methods of a class of the file and
        of its bases in the file."""
        found = self._members.get(name)
        if found is None:
            names: set[str] = set()
            for info in self.class_chain(name):
                names.update(info.methods)
                names.update(info.class_attributes)
                for method in info.methods.values():
                    names.update(self.body(method).attributes_read.get("self", ()))
            found = self._members[name] = frozenset(names)
        return found

    def callers_of(self, qualified: str) -> frozenset[str]:
        """The functions of the file that the evidence says call ``qualified`` (indexed once:
        the evidence does not change during a walk)."""
        if self._callers_of is None:
            index: dict[str, set[str]] = {}
            for callee, caller in self.evidence.callers:
                index.setdefault(callee, set()).add(caller)
            self._callers_of = {callee: frozenset(callers) for callee, callers in index.items()}
        return self._callers_of.get(qualified, frozenset())

    def call_nodes_by_id(self) -> dict[int, cst.Call]:
        """Every call of the file by ``id`` (``Evidence.call_nodes`` names them so; made once)."""
        if self._calls_by_id is None:
            self._calls_by_id = {id(node): node for node in subtree(self.module) if type(node) is cst.Call}
        return self._calls_by_id

    def argument_classes(self, function: str, position: int) -> set[str]:
        """The classes of the file the evidence says calls pass to ``function`` at ``position``
        (indexed once: the evidence does not change during a walk); where no call of the file
        says, the project's classes that modules importing it pass (``TrainManager(model, cfg)``
        in ``train.py``, with ``model = Model()`` of ``model.py``)."""
        if self._argument_classes is None:
            self._argument_classes = _by_position(self.evidence.argument_classes)
        found = self._argument_classes.get((function, position), set())
        if found or not self.externals.path:
            return found
        if self._importer_argument_classes is None:
            self._importer_argument_classes = _by_position(self.externals.argument_classes_by_importers)
        return self._importer_argument_classes.get((function, position), set())

    def methods_named(self, method: str) -> list[cst.FunctionDef]:
        """The definitions of ``method`` in the file's classes, in the classes' order (indexed
        once: the classes are all known before the walk starts)."""
        if self._methods_named is None:
            index: dict[str, list[cst.FunctionDef]] = {}
            for info in self.classes.values():
                for name, definition in info.methods.items():
                    index.setdefault(name, []).append(definition)
            self._methods_named = index
        return self._methods_named.get(method, [])

    def body(self, definition: cst.FunctionDef) -> _Body:
        assert self.index is not None
        return self.index.body(definition)

    def detaching_helper(self, definition: cst.FunctionDef) -> bool:
        return self.index.detaching_helper(definition) if self.index is not None else _detaching_helper(definition)

    def names_called(self, definition: cst.FunctionDef) -> frozenset[str]:
        """The plain names a function calls (``model(x)`` calls ``model``), once per definition."""
        return self.body(definition).names_called

    def class_by_members(self, read: set[str]) -> Optional[str]:
        """The one class of the file whose members include every name in ``read`` (structural
        typing of an unannotated parameter: ``sample(model, ...)`` reading ``model.layers`` and
        ``model.hidden_size`` takes the file's ``CharRNN``). Names any module or tensor has say
        nothing; at least one name must be the class's own."""
        specific = read - _GENERIC_MEMBERS - _TENSOR_METHODS
        if not specific - _MAPPING_METHODS or not self.classes:
            return None  # (``batch.update(outputs)`` on a dict handed in is no ``MetricTracker``)
        candidates = [name for name in self.classes if specific <= self.members(name)]
        return candidates[0] if len(candidates) == 1 else None

    def class_chain(self, name: Optional[str]) -> Iterator[ClassInfo]:
        """The class and its bases defined in the file, nearest first."""
        seen: set[str] = set()
        stack = [name] if name else []
        while stack:
            current = stack.pop(0)
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            info = self.classes[current]
            yield info
            stack.extend(base.rsplit(".", 1)[-1] for base in info.bases)

    def forward_helpers(self, cls: str) -> set[str]:
        """``forward`` and the methods it calls on ``self``, transitively (names)."""
        found = self._forward_helpers.get(cls)
        if found is not None:
            return found
        found = {"forward", "__call__"}
        stack = ["forward", "__call__"]
        while stack:
            method = self.method(cls, stack.pop())
            if method is None:
                continue
            for call in self.body(method).calls:
                name = method_on_self(call.func)
                if name is not None:
                    if name not in found:
                        found.add(name)
                        stack.append(name)
        self._forward_helpers[cls] = found
        return found

    def overrides(self, cls: str, name: str) -> list[cst.FunctionDef]:
        """The definitions of method ``name`` in the file's subclasses of ``cls`` (not ``cls``'s own)."""
        found = []
        for info in self.classes.values():
            if info.name != cls and name in info.methods and any(base.name == cls for base in self.class_chain(info.name)):
                found.append(info.methods[name])
        return found

    def method(self, cls: Optional[str], name: str) -> Optional[cst.FunctionDef]:
        for info in self.class_chain(cls):
            if name in info.methods:
                return info.methods[name]
        return None

    def flag(self, node: Optional[cst.BaseExpression], function: Optional[cst.FunctionDef], cls: Optional[str], depth: int = 0) -> Optional[bool]:
        """The truth of a switch such as ``create_graph=not self.first_order`` or
        ``retain_graph=USE_MEMORY`` as the file configures it by default: literals, ``not``, a
        parameter's default, a module constant assigned once, an attribute the class's methods
        set only from such values. None when the code does not say."""
        if node is None or depth > 4:
            return None
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value == "True"
            if function is not None:
                for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
                    if param.name.value == node.value:
                        # its default, unless a call of the function in the file passes it another
                        # value (``_jacobian_vector_product(y, x, v, create_graph=True)``)
                        found = {self.flag(param.default, None, None, depth + 1)}
                        found |= {self.flag(given, None, None, depth + 1) for given in self._passed_for(function, param)}
                        return found.pop() if len(found) == 1 else None
                if node.value in self._assigned_names(function):
                    return None  # a local variable: its value is the function's business
            return self._module_flags().get(node.value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.flag(node.expression, function, cls, depth + 1)
            return None if inner is None else not inner
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self" and cls is not None:
            found = {
                self.flag(value, method, cls, depth + 1)
                for method, value in self._attribute_assignments(cls, node.attr.value)
            }
            return found.pop() if len(found) == 1 else None
        return None

    def may_be_true(self, node: Optional[cst.BaseExpression], function: Optional[cst.FunctionDef], cls: Optional[str], depth: int = 0) -> bool:
        """Some value the file gives a switch the default does not settle is ``True``: a
        parameter some call passes True (or a name bound so in the caller: MACE's
        ``compute_forces(..., training=training)``), a local bound so (``create_graph =
        method.should_create_higher_order_graph() or create_graph``), ``x and o.flag`` where a
        class of the file sets ``flag = True`` (timm's ``is_second_order``), a call of a function
        of the file that returns True. Evidence of True, never a guess from a name."""
        if node is None or depth > 5:
            return False
        settled = self.flag(node, function, cls)
        if settled is not None:
            return settled
        if isinstance(node, cst.Name):
            if function is None:
                return False
            return any(
                self.may_be_true(value, where, cls if where is function else self.owner.get(id(where)) if where is not None else None, depth + 1)
                for value, where, _default in self._values_given(node.value, function)
            )
        if isinstance(node, cst.BooleanOperation):
            if isinstance(node.operator, cst.Or):
                return self.may_be_true(node.left, function, cls, depth + 1) or self.may_be_true(node.right, function, cls, depth + 1)
            return self.flag(node.left, function, cls) is not False and self.may_be_true(node.right, function, cls, depth + 1)
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value == "self" and cls is not None:
                return any(self.may_be_true(value, method, cls, depth + 1) for method, value in self._attribute_assignments(cls, node.attr.value))
            return node.attr.value in self._set_true_somewhere()
        if isinstance(node, cst.Call):
            func = node.func
            called = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
            return called is not None and called in self._set_true_somewhere()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            # ``create_graph=not (model.first_order or model.evaluating)``, both set False somewhere
            return self._may_be_false(node.expression, function, depth + 1)
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and type(node.comparisons[0].operator) is cst.Equal:
            # ``create_graph = opt == 'adahessian'`` with ``def run(steps, opt='adahessian')``
            wanted = _literal(node.comparisons[0].comparator)
            return wanted is not None and self._may_hold(node.left, wanted, function, depth + 1)
        return False

    def _may_hold(self, node: cst.BaseExpression, wanted: object, function: Optional[cst.FunctionDef], depth: int) -> bool:
        """Some value the file gives ``node`` is the literal ``wanted``: its own literal, a
        parameter's default or what a call passes, a local's values."""
        if depth > 5:
            return False
        if _literal(node) == wanted:
            return True
        if not isinstance(node, cst.Name) or function is None:
            return False
        return any(
            _literal(value) == wanted if default else self._may_hold(value, wanted, where, depth + 1)
            for value, where, default in self._values_given(node.value, function)
        )

    def _values_given(self, name: str, function: cst.FunctionDef) -> Iterator[tuple[cst.BaseExpression, Optional[cst.FunctionDef], bool]]:
        """What ``name`` may hold in ``function``, each with the function it is written in and
        whether it is the parameter's default: for a parameter, its default and what each call
        passes (None for a call at the top); for another name, what the function's own
        assignments bind."""
        for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
            if param.name.value == name:
                if param.default is not None:
                    yield param.default, None, True
                for given, caller in self._passed_with_caller(function, param):
                    yield given, caller, False
                return
        for value in self._local_values(function, name):
            yield value, function, False

    def _passed_with_caller(self, function: cst.FunctionDef, param: cst.Param) -> list[tuple[cst.BaseExpression, Optional[cst.FunctionDef]]]:
        """``_passed_for`` with the function of the file each call is in (None: at the top)."""
        if self._enclosing is None:
            enclosing: dict[int, cst.FunctionDef] = {}
            for definition in subtree(self.module):
                if type(definition) is cst.FunctionDef:
                    for node in subtree(definition.body):
                        if type(node) is cst.Call:
                            enclosing[id(node)] = definition  # an inner definition comes later and wins
            self._enclosing = enclosing
        positional = [*function.params.posonly_params, *function.params.params]
        index = positional.index(param) if param in positional else None
        if index is not None and positional and positional[0].name.value in ("self", "cls"):
            index -= 1
        found = []
        for call in self._calls_named(function.name.value):
            given = _passed_at(call, index, param.name.value)
            if given is not None:
                found.append((given, self._enclosing.get(id(call))))
        return found

    def _local_values(self, function: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
        """The values ``name = value`` binds in ``function``'s own body."""
        return [value for assigned, value in _own_assignments(function) if assigned == name]

    def _set_true_somewhere(self) -> frozenset[str]:
        """Names the file's classes bind to ``True`` (``is_second_order = True`` in a class body,
        ``self.is_second_order = True``) and functions that return True."""
        return self._set_somewhere(True)

    def _set_somewhere(self, literal: bool) -> frozenset[str]:
        """Names the file binds to the literal ``True`` (or ``False``), and functions that return it."""
        if literal not in self._literal_names:
            spelled = "True" if literal else "False"
            names: set[str] = set()
            for node in subtree(self.module):
                if type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == spelled:
                    for target in node.targets:
                        if type(target.target) is cst.Attribute:
                            names.add(target.target.attr.value)
                        elif type(target.target) is cst.Name:
                            names.add(target.target.value)
                elif type(node) is cst.FunctionDef:
                    returns = [small for small in subtree(node.body) if type(small) is cst.Return]
                    if any(type(ret.value) is cst.Name and ret.value.value == spelled for ret in returns):
                        names.add(node.name.value)
            self._literal_names[literal] = frozenset(names)
        return self._literal_names[literal]

    def _may_be_false(self, node: cst.BaseExpression, function: Optional[cst.FunctionDef], depth: int) -> bool:
        """Some value the file gives ``node`` is falsy: ``False`` or ``None`` written, a
        parameter's default or what a call passes, an attribute or name the file sets to False
        (``self.mml_eval = False``)."""
        if depth > 5:
            return False
        if isinstance(node, cst.BooleanOperation):
            if isinstance(node.operator, cst.Or):
                return self._may_be_false(node.left, function, depth + 1) and self._may_be_false(node.right, function, depth + 1)
            return self._may_be_false(node.left, function, depth + 1) or self._may_be_false(node.right, function, depth + 1)
        if isinstance(node, cst.Attribute):
            return node.attr.value in self._set_somewhere(False)
        if type(node) is cst.Name and node.value in ("False", "None") or type(node) is cst.Integer and node.value == "0":
            return True
        if not isinstance(node, cst.Name) or function is None:
            return False
        return any(self._may_be_false(value, where, depth + 1) for value, where, _default in self._values_given(node.value, function))

    def global_instance_class(self, key: str) -> Optional[str]:
        """The class of the file every assignment to the module-level ``key`` (``_CURRENT``,
        ``Logger.CURRENT``; in a function or at the top) constructs, or None (``None`` given
        as a first value is left aside)."""
        known = self._global_classes.get(key, "")
        if known != "":
            return known
        built = self._global_built(key, set())
        found = next(iter(built)) if len(built) == 1 and "?" not in built else None
        self._global_classes[key] = found
        return found

    def _global_built(self, key: str, visiting: set[str]) -> set[str]:
        """The classes assignments to the global ``key`` construct ("?" for anything else),
        through other globals it is set from (``Logger.CURRENT = Logger.DEFAULT``, and back)."""
        visiting.add(key)
        built: set[str] = set()
        for node in subtree(self.module):
            if type(node) is not cst.Assign or not any(dotted(target.target) == key for target in node.targets):
                continue
            value = node.value
            if type(value) is cst.Name and value.value == "None":
                continue
            if type(value) in (cst.Name, cst.Attribute) and (other := dotted(value)) is not None and "." in other:
                if other not in visiting:
                    built |= self._global_built(other, visiting)
                continue
            name = dotted(value.func) if type(value) is cst.Call else None
            built.add(name if name is not None and name in self.classes else "?")
        return built

    def module_strings(self) -> dict[str, Optional[str]]:
        """Module-level names bound once to a string literal (``PRED = "y_pred"``); bound again: None."""
        if self._strings is None:
            strings: dict[str, Optional[str]] = {}
            for statement in self.module.body:
                if type(statement) is not cst.SimpleStatementLine:
                    continue
                for small in statement.body:
                    if type(small) is cst.Assign:
                        targets: list[cst.BaseExpression] = [target.target for target in small.targets]
                        values: list[cst.BaseExpression] = [small.value]
                        if len(targets) == 1 and type(targets[0]) is cst.Tuple and type(small.value) is cst.Tuple:
                            # ``PRED, TARGET = "y_pred", "y_true"``
                            targets = [element.value for element in targets[0].elements]
                            values = [element.value for element in small.value.elements]
                        if len(values) != len(targets):
                            values = [small.value] * len(targets)
                        for target, value in zip(targets, values):
                            if type(target) is cst.Name:
                                literal = str(_string_value(value)) if type(value) is cst.SimpleString else None
                                strings[target.value] = literal if target.value not in strings else None
                    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name):
                        strings[small.target.value] = None
            self._strings = strings
        return self._strings

    def _calls_named(self, name: str) -> list[cst.Call]:
        """The file's calls whose callee is ``name`` or ``<something>.name`` (indexed once)."""
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for node in subtree(self.module):
                if type(node) is cst.Call:
                    called = node.func.value if type(node.func) is cst.Name else node.func.attr.value if type(node.func) is cst.Attribute else None
                    if called is not None:
                        self._calls_by_name.setdefault(called, []).append(node)
        return self._calls_by_name.get(name, [])

    def _passed_for(self, function: cst.FunctionDef, param: cst.Param) -> list[cst.BaseExpression]:
        """What the file's calls naming ``function`` (``f(...)``, ``self.f(...)``) pass for
        ``param``, by keyword or position (a method's ``self`` counted as bound)."""
        return [given for given, _caller in self._passed_with_caller(function, param)]

    def _module_flags(self) -> dict[str, Optional[bool]]:
        """Module-level names bound once to ``True`` or ``False`` (bound again: unknown)."""
        if self._flags is None:
            flags: dict[str, Optional[bool]] = {}
            for statement in self.module.body:
                if type(statement) is not cst.SimpleStatementLine:
                    continue
                for small in statement.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                        name = small.targets[0].target.value
                        literal = small.value.value if isinstance(small.value, cst.Name) and small.value.value in ("True", "False") else None
                        flags[name] = literal == "True" if literal is not None and name not in flags else None
            self._flags = flags
        return self._flags

    def _assigned_names(self, function: cst.FunctionDef) -> set[str]:
        return {name for name, _value in _own_assignments(function)}

    def holds_a_bound_method(self, cls: str, attribute: str) -> bool:
        """``self.<attribute>`` is set in ``__init__`` from a parameter, and every construction of
        the class in the file passes a bound method of a class of the file there
        (``PriorPlayer(net.policy_value_fn)``): calling it runs that method, not a module."""
        known = self._bound_methods.get((cls, attribute))
        if known is None:
            known = self._bound_methods[(cls, attribute)] = self._holds_a_bound_method(cls, attribute)
        return known

    def _holds_a_bound_method(self, cls: str, attribute: str) -> bool:
        init = self.method(cls, "__init__")
        if init is None:
            return False
        params = [param.name.value for param in (*init.params.posonly_params, *init.params.params)][1:]
        given = {dotted(value) for method, value in self._attribute_assignments(cls, attribute) if method is init}
        if len(given) != 1 or (parameter := given.pop()) not in params:
            return False
        position = params.index(parameter)
        # (a construction leaving it out gives the default: no bound method)
        passed = [_passed_at(node, position, parameter) or cst.Name("None") for node in self._calls_named(cls) if type(node.func) is cst.Name]
        return bool(passed) and all(
            type(value) is cst.Attribute and bool(self.methods_named(value.attr.value)) and not self.classes.get(value.attr.value)
            for value in passed
        )

    def _attribute_assignments(self, cls: str, attribute: str) -> Sequence[tuple[cst.FunctionDef, cst.BaseExpression]]:
        """``(method, value)`` for each ``self.<attribute> = value`` in the class and its bases;
        every attribute's are gathered in one pass over the class, memoised per class (a class
        is asked about each of its attributes, often)."""
        by_attribute = self._assignments_by_class.get(cls)
        if by_attribute is None:
            by_attribute = self._assignments_by_class[cls] = {}
            for info in self.class_chain(cls):
                for method in info.methods.values():
                    for statement in iter_statements(method.body.body):
                        if type(statement) is not cst.SimpleStatementLine:
                            continue
                        for small in statement.body:
                            if not isinstance(small, (cst.Assign, cst.AnnAssign)) or small.value is None:
                                continue
                            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                            for node in targets:
                                if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                                    by_attribute.setdefault(node.attr.value, []).append((method, small.value))
        return by_attribute.get(attribute, ())

    def imported_bases(self, cls: str) -> list[ClassSummary]:
        """The classes of other modules of the project that ``cls`` (of the file) and its bases
        in the file derive from; memoised per class."""
        found = self._imported_bases.get(cls)
        if found is None:
            found = self._imported_bases[cls] = [
                inherited for info in self.class_chain(cls) for base in info.bases
                if (inherited := self.imported_class(base)) is not None
            ] if self.imports_from_project else []
        return found

    def setting_methods(self, cls: str, attribute: str) -> list[cst.FunctionDef]:
        """The methods of the class that set ``self.<attribute>`` and run none of the object's other
        methods (a setup method, ``on_fit_start``), which a method defined before them may need
        walked first; memoised per class and attribute."""
        found = self._setting_methods.get((cls, attribute))
        if found is None:
            methods = {name for info in self.class_chain(cls) for name in info.methods}
            found = self._setting_methods[(cls, attribute)] = [
                method for method in dict.fromkeys(method for method, _ in self._attribute_assignments(cls, attribute))
                if not any(
                    # (one that runs the object's other methods is walked in its turn: its calls need theirs)
                    method_on_self(call.func) in methods
                    for call in self.body(method).calls
                )
            ]
        return found

    def reads_back(self, cls: str, attribute: str) -> bool:
        """A method of the class (or a base) computes something else from ``self.<attribute>``
        (``mem = self.memory + pos``, ``return h + self.memory``), not only the attribute's own
        updates (``self.memory = torch.cat([out, self.memory])``) or tests of it."""
        key = f"self.{attribute}"
        for info in self.class_chain(cls):
            for method in info.methods.values():
                for statement in iter_statements(method.body.body):
                    if type(statement) is cst.Return and statement.value is not None:
                        value: Optional[cst.BaseExpression] = statement.value
                        targets: list[cst.BaseExpression] = []
                    elif type(statement) is cst.Assign:
                        value, targets = statement.value, [t.target for t in statement.targets]
                    elif type(statement) in (cst.AugAssign, cst.AnnAssign):
                        value, targets = statement.value, [statement.target]  # type: ignore[attr-defined]
                    else:
                        continue
                    if value is None or any(key in mentions(target) for target in targets):
                        continue
                    if key in _names_read(value, _number_or_cut):
                        return True
        return False

    def imported_class(self, name: Optional[str]) -> Optional[ClassSummary]:
        """A class of another module of the project: by the name this file imports it under
        (``AverageMeter``, ``utils.AverageMeter``) or by the key a value names it with."""
        if not name:
            return None
        found = self.externals.classes.get(name) if ":" in name else self.externals.resolve(name)
        return found if isinstance(found, ClassSummary) else None

    def implementation(self, cls: str, name: str) -> Optional[Summary]:
        """``imported_method``, except that a method the class leaves abstract (a no-op) runs
        the one implementation a subclass in the project gives it: an object declared as the
        base (``vae_model: BaseVAE``) is one of its subclasses."""
        method = self.imported_method(cls, name)
        if method is not None and _does_nothing(method) and CLASS_UNION not in cls:
            return self.sole_override(cls.rsplit(":", 1)[-1].rsplit(".", 1)[-1], name) or method
        return method

    def sole_override(self, base: str, method: str) -> Optional[Summary]:
        """``method`` as the one class of another module of the project that names ``base``
        among its bases implements it; None when none or several do."""
        overrides = self.externals.project_overrides(base, method)
        return overrides[0] if len(overrides) == 1 else None

    def imported_method(self, cls: Optional[str], name: str) -> Optional[Summary]:
        """A method of an imported class, or one a class of this file inherits from one; of an
        object of one of several classes, the one that keeps something stands for them all."""
        if cls is not None and CLASS_UNION in cls:
            methods = [method for part in classes_of(cls) if (method := self.imported_method(part, name)) is not None]
            keeping = [method for method in methods if _keeps_something(method)]
            return keeping[0] if keeping else (methods[0] if methods else None)
        found = self.imported_class(cls)
        if found is not None:
            return found.methods.get(name)
        for info in self.class_chain(cls):
            for base in info.bases:
                inherited = self.imported_class(base)
                if inherited is not None and name in inherited.methods:
                    return inherited.methods[name]
        return None


def analyse(
    module: cst.Module,
    settings: Settings = Settings(),
    no_grad_callees: Optional[frozenset[str]] = None,
    externals: Optional[Externals] = None,
    code: Optional[Callable[[], str]] = None,
) -> FileFacts:
    """Walk ``module`` and return what every rule needs to know about it.

    A first walk gathers usage evidence (what is backwarded, what is a module); a second walk,
    made only when the first learned something, decides with it.
    ``no_grad_callees`` (functions called under ``torch.no_grad()``) may come from the caller,
    which sees the whole file when ``module`` is only its relevant part.
    ``externals`` are the summaries of what the file imports from its project; without them,
    ``settings.origin`` (where the file lives) lets the project index find them; ``code``, when
    given, makes ``module.code`` more cheaply (the index reads it to tell which imports are used).
    """
    with memo.analysing():
        return _analyse(module, settings, no_grad_callees, externals, code)


def _analyse(
    module: cst.Module, settings: Settings, no_grad_callees: Optional[frozenset[str]], externals: Optional[Externals],
    code: Optional[Callable[[], str]] = None,
) -> FileFacts:
    if no_grad_callees is None:
        no_grad_callees = called_under_no_grad(ast.parse(module.code))
    if externals is None and settings.origin is not None:
        from torchleak.analysis.project import externals_for  # the index analyses other modules with this function

        externals = externals_for(module, settings, code)
    externals = externals if externals is not None else Externals()
    evidence = Evidence()
    index = _FileIndex(module)
    facts = _walk(module, settings, no_grad_callees, evidence, externals, index)
    final: Optional[Evidence] = None
    for _ in range(2):
        learned = _evidence(facts, evidence, externals)
        # (sizes only grow, but for no-grad functions, which a call with grad can take back)
        if learned.size() == evidence.size() and learned.no_grad_functions == evidence.no_grad_functions:
            final = learned  # what ``_evidence(facts, evidence)`` gives again
            break
        evidence = learned
        facts.release()  # the walk it learned from is not read again
        facts = _walk(module, settings, no_grad_callees, evidence, externals, index)
    facts.evidence = final if final is not None else _evidence(facts, evidence, externals)
    facts.backwarded_by_importers = externals.backwarded_by_importers  # read lazily by queries
    facts.externals = externals
    return facts


def _walk(
    module: cst.Module, settings: Settings, no_grad_callees: frozenset[str], evidence: Evidence, externals: Externals,
    index: Optional[_FileIndex] = None,
) -> FileFacts:
    if index is None:
        index = _FileIndex(module)
    statements = index.statements
    context = _FileContext(
        module=module,
        settings=settings,
        aliases=index.aliases,
        facts=FileFacts(module),
        evidence=evidence,
        externals=externals,
        index=index,
    )
    context.no_grad_callees = set(no_grad_callees)
    context.def_tops = index.def_tops
    context.imports_from_project = not (type(externals) is Externals and not externals.names and not externals.classes)
    for statement in statements:
        if type(statement) is cst.ClassDef:
            bases = [dotted(base.value) or "" for base in statement.bases if base.keyword is None]
            info = ClassInfo(statement.name.value, bases)
            fields: list[str] = []
            for member in _body(statement.body):
                if type(member) is cst.FunctionDef:
                    info.methods[member.name.value] = member
                    context.owner[id(member)] = info.name
                elif type(member) is cst.SimpleStatementLine:
                    for small in member.body:
                        targets = [t.target for t in small.targets] if type(small) is cst.Assign else [small.target] if type(small) is cst.AnnAssign else []
                        info.class_attributes.update(target.value for target in targets if type(target) is cst.Name)
                        if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                            fields.append(small.target.value)  # ``tokens: torch.Tensor``
            info.fields = tuple(fields)
            info.holds_arguments = "__init__" not in info.methods and (
                any((dotted(d.decorator.func if type(d.decorator) is cst.Call else d.decorator) or "").rsplit(".", 1)[-1] in _FIELD_CLASS_DECORATORS for d in statement.decorators)
                or any(base.rsplit(".", 1)[-1] == "NamedTuple" for base in bases)
            ) or _keeps_its_keywords(info.methods.get("__init__"))
            context.classes[info.name] = info
        elif type(statement) is cst.FunctionDef:
            context.functions.setdefault(statement.name.value, []).append(statement)
        elif (record := _named_tuple_class(statement, context.aliases)) is not None and record.name not in context.classes:
            context.classes[record.name] = record
    for info in context.classes.values():
        info.is_module = any(
            base.rsplit(".", 1)[-1].endswith(_MODULE_BASES) or getattr(context.imported_class(base), "is_module", False)
            for base in info.bases
        )
    for info in context.classes.values():  # a subclass of a module class in the file is a module
        info.is_module = info.is_module or any(other.is_module for other in context.class_chain(info.name))
    for info in context.classes.values():
        # A class that defines ``forward`` is a module even when its base is imported from
        # elsewhere, unless a base the file shows is not one (Hugging Face's ``Pipeline``
        # defines ``forward`` on top of plain mixins).
        plain_bases = [base for base in info.bases if base in context.classes and not context.classes[base].is_module]
        plain_bases += [
            base for base in info.bases
            if base not in context.classes and context.imported_class(base) is not None
            and not getattr(context.imported_class(base), "is_module", False)
        ]
        if "forward" in info.methods and not plain_bases:
            info.is_module = True
    for info in context.classes.values():
        info.is_module = info.is_module or any(other.is_module for other in context.class_chain(info.name))
    context.facts.module_classes = {name for name, info in context.classes.items() if info.is_module}
    context.facts.record_classes = {name: info.fields for name, info in context.classes.items() if info.holds_arguments}
    context.facts.observations = context.observations
    top_level = _Walker(context, module, _MODULE_SCOPE, no_grad=False, per_batch=False)
    top_level.run(module.body)
    # ``classifier = nn.Sequential(...)`` at the top of a script: functions that use the global
    # see a module on the next walk, whatever it is called.
    context.observations.module_uses.update(
        (_MODULE_SCOPE, key) for key, value in top_level.env.items() if value.kind is Kind.MODULE and "." not in key
    )
    return context.facts


#: Methods that add to a container without taking anything out of it.
_GROWING_METHODS: Final = frozenset({"append", "extend", "add", "insert", "appendleft"})


def _keeps_a_graph_on_its_object(function: Function, facts: FileFacts, externals: Externals) -> bool:
    """The function stores or sums into its object's state a graph it computes itself, in a
    container that only ever grows (a log: nothing but its constructor empties or rebinds it,
    so no caller can be bounding it between calls)."""
    return any(
        effect.value.attached  # (whatever else it takes from its arguments)
        and effect.target.startswith("self.") and _only_grows(effect, facts, externals)
        for effect in function.summary.effects
    )


def _only_grows(effect: Effect, facts: FileFacts, externals: Externals) -> bool:
    """No method of the class that keeps the value (``Logger`` for ``Logger.log_stat``),
    besides its constructor, does anything to that attribute but add to it."""
    if effect.kind != "store" or effect.method not in _GROWING_METHODS:
        return False
    cls, _, _ = effect.where.rpartition(".")
    if not cls:
        return False
    module = effect.origin.rpartition(":")[0]
    if module:
        found = externals.classes.get(class_key(module, cls))
        if found is None:
            return False
        methods = list(found.methods.items())
    else:
        methods = [(function.name.rsplit(".", 1)[-1], function.summary) for function in facts.functions if function.cls == cls]
    # the attribute as the storing method names it (``self.stats``, where the caller sees ``self.logger.stats``)
    storing = effect.where.rpartition(".")[2]
    attribute = next(
        (own.target for name, summary in methods if name == storing for own in reversed(summary.effects)
         if own.where == effect.where and own.kind == "store"),
        None,
    )
    if attribute is None or not attribute.startswith("self."):
        return False
    return not any(
        other.target == attribute or other.target.startswith((attribute + ".", attribute + "["))
        for name, summary in methods if name != "__init__"
        for other in summary.effects
        if not (other.kind == "store" and other.method in _GROWING_METHODS)
    )


def _evidence(facts: FileFacts, previous: Evidence, externals: Optional[Externals] = None) -> Evidence:
    """Turn one walk's observations into evidence for the next (monotone: it only grows)."""
    observations: _Observations = facts.observations
    evidence = Evidence(
        set(previous.modules), set(previous.backwarded), set(previous.backwarded_results),
        set(previous.numeric_results), set(previous.called), set(previous.feeds_backward),
        set(previous.callers), set(previous.argument_classes), set(previous.no_grad_functions),
        set(previous.called_without_grad), {name: set(positions) for name, positions in previous.backwarded_positions.items()},
        set(previous.called_for_a_backward), set(previous.per_batch_by_importers), set(previous.called_with_grad),
    )
    # (a hook runs with grad where the module trains: the file trains, or the hook asks
    # ``module.training``; a feature extractor run under no_grad keeps no graph)
    trains = any(loop.has_backward or loop.has_optimizer_step for loop in facts.loops)
    evidence.forward_hooks = previous.forward_hooks | {hook for hook, tests_training in observations.forward_hooks.items() if trains or tests_training}
    evidence.batch_callbacks = previous.batch_callbacks | (observations.batch_callbacks if trains else set())
    evidence.called_without_grad |= observations.called_without_grad
    evidence.called_with_grad |= observations.called_with_grad
    if externals is not None and externals.path:
        evidence.per_batch_by_importers |= {
            function.name for function in facts.functions
            if function.cls is not None and _keeps_a_graph_on_its_object(function, facts, externals)
            and externals.analysed_when_linted() and function.name in externals.called_per_batch_by_importers
        }
    evidence.modules |= observations.module_uses
    evidence.optimized = previous.optimized | observations.optimized
    evidence.called |= observations.called
    evidence.callers |= observations.callers
    evidence.call_nodes = previous.call_nodes | observations.call_nodes
    evidence.no_grad_functions |= {function.name for function in facts.functions if function.summary.no_grad}
    # (a method the pre-filter saw called under no_grad, walked so before any call with grad was
    # known: ``concatenated_forward`` of DPO's policy and reference model; once a call runs it
    # with grad and this walk did, it is no no-grad function, nor are its callees for its sake)
    evidence.no_grad_functions -= {
        function.name for function in facts.functions
        if not function.summary.no_grad and function.name in observations.called_with_grad
    }
    evidence.argument_classes |= observations.argument_classes
    backwarded_by_function: dict[int, set[str]] = {}
    loops = {id(loop.node): loop for loop in facts.loops}
    per_batch_methods = {id(loop.node) for loop in facts.loops if loop.per_batch_method}
    sources_by_loop: dict[int, dict[int, set[str]]] = {}
    reaching_by_function: dict[int, set[str]] = {}

    def reaching(function: Function) -> set[str]:
        """Every name whose value flows into what ``function`` backwards (once per function)."""
        found = reaching_by_function.get(id(function))
        if found is None:
            found = reaching_by_function[id(function)] = function.sources_of(backwarded_by_function.get(id(function), set()), data_only=True)
        return found

    roots: set[tuple[int, str]] = set()
    for function, key, loop, root in observations.backward_keys:
        if root:
            evidence.backwarded.add((scope_of(function, key), key, loop))
            roots.add((id(function), key))
            for source in _sole_sources(function, key):
                # ``loss = losses.mean(dim=0)`` backwarded: ``losses`` (from a callee the file
                # cannot see into) holds the graph too
                evidence.backwarded.add((scope_of(function, source), source, loop))
        backwarded_by_function.setdefault(id(function), set()).add(key)
    for function in facts.functions:
        if id(function) in backwarded_by_function:
            evidence.feeds_backward |= {(scope_of(function, key), key) for key in reaching(function)}
    for function, key, argument in observations.called_arguments:
        if key in reaching(function):
            evidence.modules.add((scope_of(function, argument), argument))
    whole: set[str] = set(previous.backwarded_results) - set(previous.backwarded_positions)
    # (only the file's functions: ``called`` is asked about them, and another name learned in a
    # later walk would cost one more walk for nothing)
    own_names = {name for function in facts.functions for name in (function.name, function.summary.key)}
    for function, key, callee, resolved, callee_name, given_a_graph in observations.call_results:
        if resolved or callee_name in own_names:
            evidence.called.add(callee_name)
        if (scope_of(function, key), key) in evidence.modules or (function.name, key) in evidence.modules:
            continue  # ``self.net = make_dp(self.net)`` then ``loss_fn(self.net, x)``: it built a module, ran no forward
        reaches_backward = key in reaching(function)
        if not reaches_backward:
            # ``out = net(x)`` then ``out.loss`` backwarded in the same loop: a field of a result
            # computed in every iteration (not ``args.coef`` of a configuration read once)
            reaches_backward = any(
                (loops[loop_id].first_access.get(key) == "write" if loop_id in loops else loop_id == 0 and id(function.node) in per_batch_methods)
                and any(source.startswith(key + ".") for source in sources)
                for loop_id, sources in _sources_by_loop(function, observations.backward_keys, sources_by_loop).items()
            )
        if reaches_backward:
            if resolved:
                evidence.backwarded_results.add(callee_name)
                position = observations.unpacked_results.get((id(function), key))
                if position is not None and callee_name not in whole:
                    evidence.backwarded_positions.setdefault(callee_name, set()).add(position)
                elif position is None:
                    whole.add(callee_name)
            elif callee:
                scoped = (scope_of(function, callee), callee)
                if scoped not in evidence.modules and (id(function), key) in roots and given_a_graph:
                    # (given a model's output, and what it returns is backwarded: a loss function's shape)
                    evidence.called_for_a_backward.add(scoped)
                evidence.modules.add(scoped)
        elif resolved and any(
            (id(function), derived) in observations.number_reads for derived in function.derived_from({key})
        ):
            evidence.numeric_results.add(callee_name)
    for name in whole:
        evidence.backwarded_positions.pop(name, None)
    _callees_of_backwarded_results(facts, observations, evidence)
    # what the next walk's ``_note_argument_classes`` would find from the modules learned here
    evidence.argument_classes |= {
        (callee, position, _SOME_MODULE) for callee, position, keys in observations.module_candidates
        if any(key in evidence.modules for key in keys)
    }
    return evidence


def _callees_of_backwarded_results(facts: FileFacts, observations: _Observations, evidence: Evidence) -> None:
    """``iou = self.net(x); return self.loss_weight * self.objective(iou, y)`` in a method whose
    result a caller backwards: the objects it holds and calls to compute that result (given to
    its ``__init__``, unknown here) ran a forward, like a callee whose result is backwarded in place."""
    unresolved: dict[int, list[tuple[str, str]]] = {}
    for function, key, callee, resolved, _callee_name, _given in observations.call_results:
        if not resolved and callee and callee.startswith("self.") and callee.count(".") == 1:
            unresolved.setdefault(id(function), []).append((key, callee))
    if not unresolved:
        return
    for function in facts.functions:
        calls = unresolved.get(id(function))
        if not calls or function.name not in evidence.backwarded_results or not function.returned_keys:
            continue
        returned = function.sources_of(function.returned_keys, data_only=True)
        for key, callee in calls:
            if key in returned:
                evidence.modules.add((scope_of(function, callee), callee))


def _sources_by_loop(
    function: Function, backward_keys: list[tuple[Function, str, int, bool]], cache: dict[int, dict[int, set[str]]]
) -> dict[int, set[str]]:
    """For each loop (by id; 0 outside loops) where ``function`` backwards something, every name
    that flows into what it backwards there; computed once per function."""
    found = cache.get(id(function))
    if found is None:
        keys: dict[int, set[str]] = {}
        for owner, key, loop_id, _root in backward_keys:
            if owner is function:
                keys.setdefault(loop_id, set()).add(key)
        found = cache[id(function)] = {loop_id: function.sources_of(names, data_only=True) for loop_id, names in keys.items()}
    return found


def _sole_sources(function: Function, key: str) -> set[str]:
    """The names whose value alone, through arithmetic with numbers and tensor methods given
    numbers (``losses.mean(dim=0)``, ``2.0 * raw.sum()``), every binding of ``key`` is computed
    from: a graph ``key`` holds comes from them."""
    found: set[str] = set()
    for binding in function.bindings:
        if binding.key != key:
            continue
        assign = single_assign(binding.node)
        source = _sole_tensor_source(assign.value) if assign is not None else None
        if source is None:
            return set()
        if source != key:
            found.add(source)
    return found


def _sole_tensor_source(node: cst.BaseExpression) -> Optional[str]:
    if type(node) in (cst.Name, cst.Attribute):
        return dotted(node)
    if type(node) is cst.Subscript:
        return _sole_tensor_source(node.value)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return _sole_tensor_source(node.expression)
    if type(node) is cst.BinaryOperation:
        numbers = [side for side in (node.left, node.right) if type(side) in (cst.Integer, cst.Float)]
        if len(numbers) == 1:
            return _sole_tensor_source(node.right if numbers[0] is node.left else node.left)
        return None
    if (
        type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in vocab.REDUCING_METHODS
        and all(_is_literal_number(arg.value) for arg in node.args)
    ):
        return _sole_tensor_source(node.func.value)
    return None


def _is_literal_number(node: cst.BaseExpression) -> bool:
    """``0``, ``-1``, ``2.0``, ``True``: an argument that brings no tensor."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Integer, cst.Float) or (type(node) is cst.Name and node.value in ("True", "False", "None"))


def _requires_no_grad_where(test: cst.BaseExpression, branch: bool) -> Optional[str]:
    """The tensor that requires no grad in the ``branch`` (True: the body) of an ``if`` on
    ``test``: ``p`` in the body of ``if not p.requires_grad:`` or the else of ``if p.requires_grad:``."""
    negated = False
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test, negated = test.expression, True
    if type(test) is cst.Attribute and test.attr.value == "requires_grad" and negated == branch:
        return dotted(test.value)
    return None


def scope_of(function: Function, key: str) -> str:
    """Where a key lives: the class for ``self.*``, else the function (or the module)."""
    if key.startswith("self.") and function.cls:
        return f"class {function.cls}"
    return function.name


class _Walker:
    """Walks one function body (or the module body) in statement order."""

    def __init__(
        self,
        context: _FileContext,
        node: Union[cst.FunctionDef, cst.Module],
        name: str,
        *,
        no_grad: bool,
        per_batch: bool,
        cls: Optional[str] = None,
    ) -> None:
        self.context = context
        self.function = Function(node, name, cls=cls)
        self.function.summary = Summary(name, no_grad=no_grad)
        self.env: dict[str, Value] = {}
        self.loops: list[Loop] = []
        self.no_grad = no_grad
        self.values: dict[int, Value] = context.facts.values  # ids are unique across walkers
        self.returns: list[Value] = []
        self.statement: cst.CSTNode = node
        self.parameters: list[str] = []
        #: Parameters whose default is a class (``actor_critic=core.MLPActorCritic``), by name.
        self.factories: dict[str, str] = {}
        self.branch_depth = 0
        #: The names each enclosing ``if`` test reads (``if self.ema is None:`` guards a lazy build).
        self.guards: list[set[str]] = []
        #: Names the enclosing ``if x is None:`` bodies test: what they bind there is a first
        #: value, given once (``if state is None: state = model.init_state(n)``), not a reset.
        self.when_none: list[str] = []
        #: Positions of the flag parameters (default ``False``/``None``) whose tests guard the
        #: statements walked now (``if track:``).
        self.flag_guards: list[int] = []
        #: ``if torch.is_tensor(x): return ...`` at the top of the body: the position of ``x`` and
        #: the returns walked up to that one.
        self.tensor_guard: Optional[tuple[int, list[Value]]] = None
        #: Positions of the parameters it calls (``Summary.called_parameters``).
        self.called_parameters: set[int] = set()
        #: A local bound to an element of a container that outlives the call -> that container.
        self.element_owners: dict[str, str] = {}
        #: Names bound to ``functools.partial(f, ...)``: called, they call ``f`` with those arguments first.
        self.partials: dict[str, cst.Call] = {}
        #: Names bound in this function (locals); other names read are globals.
        self.local_names: set[str] = set()
        # Loops of a module's forward (and of the methods it calls) unroll one forward pass;
        # loops of its other methods (``sample``, ``generate``) run forward passes, one per step.
        # A method whose callers in the file never backward its result (a sampler called by an
        # evaluation script) is the second kind; without callers, stay with the first, unless
        # another module of the project calls it with grad (asked only when a loop needs it:
        # reading importers costs a project scan).
        self._in_module_method: Optional[bool] = None
        #: A loop variable bound to one module of a container -> the container's key, which
        #: owns the state that module's forward keeps (``for layer in flow: layer(x)``).
        self.module_aliases: dict[str, str] = {}
        #: A loop variable over modules of several classes (``for layer in self.layers``): each
        #: class it may be, whose forward's effects on ``self`` a call of it may have.
        self.module_candidates: dict[str, tuple[Value, ...]] = {}
        #: (helper, key) of what a helper called inside a loop of this function keeps: reported in
        #: that loop, so the same call outside it does not pass it on to this function's callers.
        self.kept_in_loops: set[tuple[str, str]] = set()
        #: Names bound to an attribute that is not known to be a module (``f = obj.items``).
        self.method_references: set[str] = set()
        #: The ``for``/``while`` loops of this function, as they are left.
        self.own_loops: list[Loop] = []
        #: Depth of comprehensions being evaluated (their element expression runs per element).
        self.in_comprehension = 0
        #: Called with grad and, somewhere else, under no_grad: the branch that does not train is the no-grad call's.
        self.shared_with_no_grad = False
        #: A loop variable bound to a parameter of a module -> the module's key.
        self.parameter_owners: dict[str, str] = {}
        #: Inside loops: name -> the names whose values reached it through a call's arguments.
        self.fed_from: dict[str, frozenset[str]] = {}
        #: The loop of a method run once per batch (its whole body), kept after the walk.
        self.per_batch_loop: Optional[Loop] = None
        if per_batch and type(node) is cst.FunctionDef:
            self.per_batch_loop = Loop(node, None, per_batch_method=True, start=context.seq + 1)
            self.loops.append(self.per_batch_loop)

    @property
    def in_module_method(self) -> bool:
        """Whether this function's loops unroll one forward pass of its module (see __init__)."""
        if self._in_module_method is None:
            cls, name, context = self.function.cls, self.function.name, self.context
            self._in_module_method = cls is not None and context.classes[cls].is_module and (
                name.rsplit(".", 1)[-1] in context.forward_helpers(cls)
                or name in context.evidence.backwarded_results
                # (``_forward_alg`` of the ``neg_log_likelihood`` a caller backwards: part of its pass)
                or bool(context.callers_of(name)) and all(
                    caller.startswith(cls + ".") and caller in context.evidence.backwarded_results for caller in context.callers_of(name)
                )
                or (
                    _builds_or_is_unused(context.callers_of(name))
                    and (
                        name not in context.externals.called_with_grad_by_importers
                        or name in context.externals.backwarded_by_importers
                    )
                )
            )
        return self._in_module_method

    # ----------------------------------------------------------------- bookkeeping
    def run(self, body: Sequence[cst.CSTNode]) -> Function:
        self.context.facts.functions.append(self.function)
        if type(self.function.node) is cst.Module:
            for statement in body:
                self.context.top = statement
                self._statement(statement)
        else:
            self._block(body)
        returns = join_returned(*self.returns) if self.returns else NONE
        self.function.returns = returns
        holds_no_graph = returns.detached and returns.kind in (Kind.TENSOR, Kind.NUMBER)
        if self.own_loops and holds_no_graph and not self.function.summary.calls_backward and not self.function.summary.effects and self.in_module_method:
            # A module's method that runs forward passes in a loop and returns no graph
            # (``predict`` returning an argmax): what the loop keeps, nothing can backward.
            for loop in self.own_loops:
                if loop.has_forward and not loop.over_layers:
                    loop.in_module_method = False
        summary = self.function.summary
        summary.returns = returns
        summary.parameters = tuple(self.parameters)
        if isinstance(self.function.node, cst.FunctionDef):
            summary.returned_unchanged = _returned_unchanged(self.function, self.function.node, self.parameters, self.values)
            summary.attribute_flows = tuple(_attribute_flows(self.function)) if self.function.cls is not None else ()
            summary.accumulated_parameters = _accumulated_and_returned(self.function, self.function.node, self.parameters)
            summary.retain_parameter = _retain_parameter(self.function, self.parameters)
            summary.returns_global = self._returned_global(self.function.node)
            summary.called_parameters = frozenset(self.called_parameters)
            if self.function.cls is not None:
                summary.returned_attributes = _returned_attributes(self.function, self.function.node)
            if self.tensor_guard is not None:
                summary.tensor_parameter, guarded = self.tensor_guard[0], self.tensor_guard[1]
                summary.tensor_returns = join(*guarded) if guarded else None
            backwards = [call for call in self.function.backwards if call.kind == "backward"]
            # (a retain for a later backward of the function, ACKTR's Fisher pass, papers over nothing)
            summary.retains = any(call.retain_graph is not None and not any(other.seq > call.seq for other in backwards) for call in backwards)
            built = self.context.global_instance_class(summary.returns_global) if summary.returns_global else None
            if built is not None and summary.returns.kind is Kind.UNKNOWN:
                summary.returns = Value(State.DETACHED, Kind.INSTANCE, cls=built)  # the module's one logger
            if summary.calls_backward:
                summary.backwarded_parameters = _backwarded_parameters(self.function)
        if self.function.backwards and all(
            call.kind == "grad" or call.kind == "call" and call.callee is not None and call.callee.grad_inputs is not None
            for call in self.function.backwards
        ):
            # (through a helper too: ``inner_grad(loss_fn, theta, x)`` returning
            # ``get_gradient(loss_fn(theta, x), theta)``, whose one backward is a grad with respect to it)
            per_call = [
                {index for index, name in enumerate(self.parameters) if any(name in mentions(given) for given in inputs)}
                for call in self.function.backwards
                for inputs in [grad_inputs_given(call)]
            ]
            summary.grad_inputs = frozenset().union(*per_call) if all(per_call) else None
        if self.function.backwards:
            differentiated = set().union(*(call.output_mentions for call in self.function.backwards if call.kind != "call"))
            sources = self.function.sources_of(differentiated, data_only=True) | differentiated
            summary.backward_sources = frozenset(key for key in sources if key.startswith("self.")) | frozenset().union(
                *(call.callee.backward_sources for call in self.function.backwards if call.callee is not None)
            )
        for loop in self.loops:  # the per-batch method's pseudo-loop
            loop.end = self.context.seq
            self.context.facts.loops.append(loop)
        return self.function

    @property
    def loop(self) -> Optional[Loop]:
        return self.loops[-1] if self.loops else None

    @property
    def scope(self) -> str:
        return self.function.name

    def _read(self, key: str) -> None:
        for loop in self.loops:
            loop.first_access.setdefault(key, "read")

    def _write(self, key: str) -> None:
        for loop in self.loops:
            loop.first_access.setdefault(key, "write")

    def _flow(self, sources: set[str], target: str) -> None:
        for source in sources:
            if source != target:
                self.function.flows_to.setdefault(source, set()).add(target)

    def _data_flow(self, value_node: cst.BaseExpression, target: str) -> None:
        """The values (not the callables computing them) of ``value_node`` that may hold a graph
        flow into ``target``."""
        for source in data_mentions(value_node) & self._graph_sources(value_node) | self._receivers_returned_from(value_node):
            if source != target:
                self.function.data_flows_to.setdefault(source, set()).add(target)
                if source.startswith("self."):
                    self.function.flows_to.setdefault(source, set()).add(target)  # (through ``self.m()``)

    def _receivers_returned_from(self, value_node: cst.BaseExpression) -> set[str]:
        """Objects whose method of the file returns what it computes from the object itself
        (``temperature = ctl.update(logits)`` returning a value made from ``self.ent_ema``): the
        result is data of that object."""
        found: set[str] = set()
        for node in subtree(value_node):
            if type(node) is cst.Call and type(node.func) is cst.Attribute:
                receiver = dotted(node.func.value)
                if receiver is None or id(node) not in self.context.applied:
                    continue
                definition = self._resolve(node.func, node.args)
                if definition is None:
                    continue
                if receiver == "self":
                    # ``self._proto_contrast(f, y)`` returning what it computes from
                    # ``self._proto_bank.get(...)``: that attribute is data of the result (with
                    # its graph: not under no_grad)
                    if not self.no_grad:
                        found |= self._own_attributes_returned(definition)
                elif self._returns_own_state(definition):
                    found.add(receiver)
        return found

    def _own_attributes_returned(self, definition: cst.FunctionDef) -> set[str]:
        """The attributes of ``self`` (``self._proto_bank``) what a walked method returns is
        computed from (its summary's ``returned_attributes``), less settings, modules and optimizers."""
        walked = self.context.walked.get(id(definition))
        if walked is None:
            return set()
        attributes = set(walked.summary.returned_attributes)
        cls = self.context.owner.get(id(definition))
        found = set()
        for attribute in attributes - {definition.name.value}:
            held = self._class_attribute(cls, attribute) if cls is not None else None
            if held is None or held.kind not in HOLDS_NO_GRAPH:
                found.add(f"self.{attribute}")  # (not a setting, a module or an optimizer)
        return found

    def _returns_own_state(self, definition: cst.FunctionDef) -> bool:
        """A method returns a value computed from an attribute of ``self``."""
        known = self.context.returns_own_state.get(id(definition))
        if known is None:
            known = self.context.returns_own_state[id(definition)] = any(
                statement.value is not None and any(key.startswith("self.") for key in data_mentions(statement.value))
                for statement in own_returns(definition)
            )
        return known

    def _locate(self, *nodes: Optional[cst.CSTNode]) -> None:
        """Remember which top-level statement holds nodes a rule may report."""
        if self.context.top is not None:
            for node in nodes:
                if node is not None:
                    self.context.facts.top_of[id(node)] = self.context.top

    def _code(self, node: cst.CSTNode) -> str:
        return self.context.module.code_for_node(node)

    def _mark_loops(self, *, backward: bool = False, step: bool = False, forward: bool = False) -> None:
        summary = self.function.summary
        summary.calls_backward |= backward
        summary.steps_optimizer |= step
        summary.runs_forward |= forward
        self.context.forwards_run += forward
        for loop in self.loops:
            loop.has_backward |= backward
            loop.has_optimizer_step |= step
            loop.has_forward |= forward

    # ----------------------------------------------------------------- evidence lookups
    def _evidence_keys(self, key: str) -> Iterator[tuple[str, str]]:
        yield (self.scope, key)
        if key.startswith("self."):
            for info in self.context.class_chain(self.function.cls):
                yield (f"class {info.name}", key)
        if key.split(".", 1)[0] not in self.local_names:
            yield (_MODULE_SCOPE, key)

    def _is_evident_module(self, key: Optional[str]) -> bool:
        if key is None:
            return False
        modules = self.context.evidence.modules
        if not modules:
            return False  # (the first walk: no evidence yet)
        return any(scoped in modules for scoped in self._evidence_keys(key))

    def _loss_helper_given_no_graph(self, node: cst.Call, receiver: Value, arguments: list[Value]) -> bool:
        """``loss_fn.prepare(batch)`` where the file knows ``loss_fn`` only as a callable whose
        result it backwards (``loss = loss_fn(batch, out)``): a loss function as much as a model,
        so another method of it, given no graph, computes none of its own."""
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value in vocab.FORWARD_METHODS or receiver.cls is not None:
            return False
        if any(argument.attached for argument in arguments):
            return False
        key = dotted(func.value)
        evidence = self.context.evidence
        if key is None or not evidence.called_for_a_backward:
            return False
        return any(scoped in evidence.called_for_a_backward for scoped in self._evidence_keys(key))

    def _loop_id(self) -> int:
        return id(self.loop.node) if self.loop is not None and not self.loop.per_batch_method else 0

    def _is_backwarded(self, key: str) -> bool:
        """A backward in the same loop (or, outside loops, the same function) differentiates it."""
        backwarded = self.context.evidence.backwarded
        if not backwarded:
            return False  # (the first walk: no evidence yet)
        loop = self._loop_id()
        return any((*scoped, loop) in backwarded for scoped in self._evidence_keys(key))

    def _lookup(self, key: str) -> Value:
        """The value bound to a dotted name: the environment, then what the file shows of it."""
        value = self.env.get(key)
        if value is None:
            value = self._known_outside(key)
        return self._optimized_leaf(key, value) if self.context.evidence.optimized else value

    def _note_optimized(self, given: cst.BaseExpression, depth: int = 0) -> None:
        """Record the tensors an optimizer is handed: a list of them, param-group dicts'
        ``"params"``, or a local bound to either in this function."""
        if depth > 5:
            return
        if type(given) is cst.Name and type(self.function.node) is cst.FunctionDef:
            for name, value in _own_assignments(self.function.node):
                if name == given.value:
                    self._note_optimized(value, depth + 1)
            return
        if isinstance(given, (cst.List, cst.Tuple)):
            for element in given.elements:
                if type(element) is cst.Element:
                    self._note_optimized(element.value, depth + 1)
            return
        if type(given) is cst.Dict:
            for entry in given.elements:
                if type(entry) is cst.DictElement and type(entry.key) is cst.SimpleString and _string_value(entry.key) == "params":
                    self._note_optimized(entry.value, depth + 1)
            return
        key = dotted(given)
        if key is not None and depth > 0:
            scope = f"class {self.function.cls}" if key.startswith("self.") and self.function.cls is not None else self.scope
            self.context.observations.optimized.add((scope, key))

    def _optimized_leaf(self, key: str, value: Value) -> Value:
        """``value``, or a leaf when the file hands ``key`` to an optimizer."""
        optimized = self.context.evidence.optimized
        if not optimized or value.attached or value.leaf or value.kind not in (Kind.TENSOR, Kind.UNKNOWN) or value.elements:
            return value
        if any(scoped in optimized for scoped in self._evidence_keys(key)):
            return LEAF
        owner, dot, attribute = key.rpartition(".")
        if dot and "." not in owner and owner != "self":
            held = self.env.get(owner)  # ``splats._xyz`` of ``splats = Splats(n)``, whose class hands ``self._xyz`` over
            if held is not None and held.cls is not None and (f"class {held.cls}", f"self.{attribute}") in optimized:
                return LEAF
        return value

    def _known_outside(self, key: str) -> Value:
        """What the file shows of a dotted name not bound in this function so far."""
        if key.startswith("self.") and self.function.cls is not None:
            attribute = self._class_attribute(self.function.cls, key[len("self."):])
            if attribute is None or attribute.kind is Kind.NONE or attribute.detached and attribute.kind not in _OBJECT_KINDS:
                # ``self.mb_output`` read by a hook method (``_after_training_iteration``) that the
                # method binding it (``training_iteration``) calls: what that caller's walk bound
                attribute = self._calling_walk_binding(key) or attribute
            if attribute is not None:
                return attribute
        head, dot, name = key.rpartition(".")
        if dot:
            # ``agent.actor`` with ``agent = Agent()``: the object ``Agent.__init__`` keeps there
            owner = self._lookup(head)
            if owner.cls is not None and owner.kind in (Kind.INSTANCE, Kind.MODULE):
                attribute = self._class_attribute(owner.cls, name)
                if attribute is not None and attribute.kind in _OBJECT_KINDS:
                    return attribute
        if self._is_evident_module(key):
            return Value(State.DETACHED, Kind.MODULE)
        if not dot and self.context.index is not None and key in self.context.index.constants and key not in self.parameters:
            return NUMBER  # ``label_dim = 10`` at the top of the file
        return UNKNOWN

    def _calling_walk_binding(self, key: str) -> Optional[Value]:
        """The attached value ``key`` (``self.<attribute>``) holds in the innermost walk in
        progress of a method of this class that calls this one, if that walk bound it."""
        for walker in reversed(self.context.active[:-1]):
            if walker.function.cls != self.function.cls:
                return None  # (another object's method: its ``self`` is not this one)
            value = walker.env.get(key)
            if value is not None:
                return value if value.attached else None
        return None

    def _class_attribute(self, cls: str, attribute: str) -> Optional[Value]:
        """What ``self.<attribute>`` holds in any method of the class (set in ``__init__``, say,
        or in a later method: ``self.meter = AverageMeter()`` in ``on_fit_start``, walked first)."""
        value = self._recorded_attribute(cls, attribute)
        if value is not None:
            if value.kind is Kind.CONTAINER and not value.attached and any(
                attribute in filled_with_graphs(walked)
                for info in self.context.class_chain(cls) for method in info.methods.values()
                if (walked := self.context.walked.get(id(method))) is not None
            ):
                return replace(value, state=State.ATTACHED)  # a dict a walked forward fills
            return value
        unwalked = [
            method for method in self.context.setting_methods(cls, attribute)
            if id(method) not in self.context.walked and id(method) not in self.context.in_progress
        ]
        if unwalked:
            for method in unwalked:
                self.walk_function(method, inherited_no_grad=False)
            value = self._recorded_attribute(cls, attribute)
            if value is not None:
                return value
        imported = self.context.imported_class(cls)
        if imported is not None:
            return imported.attributes.get(attribute)
        for inherited in self.context.imported_bases(cls):
            # ``self.logger`` in a subclass of another module's class whose ``__init__`` sets it
            if attribute in inherited.attributes:
                return inherited.attributes[attribute]
        return None

    def _recorded_attribute(self, cls: str, attribute: str) -> Optional[Value]:
        """What the walks so far recorded ``self.<attribute>`` holds, in the class or a base of the file."""
        for info in self.context.class_chain(cls):
            value = self.context.facts.attributes.get((info.name, attribute))
            if value is not None:
                return value
        return None

    # ----------------------------------------------------------------- statements
    def _block(self, body: Sequence[cst.CSTNode]) -> None:
        for statement in body:
            self._statement(statement)

    def _statement(self, node: cst.CSTNode) -> None:
        self.statement = node
        if type(node) is cst.SimpleStatementLine:
            for small in node.body:
                self.statement = small
                self._small_statement(small)
        elif _is_small_statement(type(node)):  # a one-line body: `for x in loader: a; b`
            self._small_statement(node)  # type: ignore[arg-type]
        elif type(node) is cst.For:
            self._for(node)
        elif type(node) is cst.While:
            self._while(node)
        elif type(node) is cst.If:
            self.evaluate(node.test)
            self.branch_depth += 1
            self.guards.append(mentions(node.test))
            trains_in = self._branch_that_trains(node)
            outer_no_grad = self.no_grad
            if not _never_true(node.test):  # (``if False and mems:``: code switched off by hand)
                narrowed = self._narrowed_to_data(node.test)
                saved = {key: self.env.get(key) for key in narrowed}
                for key in narrowed:
                    self.env[key] = NUMBER  # ``if type(x) == np.ndarray: return x``: an array, no graph
                instance = self._narrowed_to_class(node.test)
                if instance is not None:
                    # ``if isinstance(self.sampler, LossAwareSampler):``: one, in the branch
                    self.env[instance[0]] = instance[1]
                no_grad_in_body = _requires_no_grad_where(node.test, True)
                if no_grad_in_body is not None:
                    saved.setdefault(no_grad_in_body, self.env.get(no_grad_in_body))
                    self.env[no_grad_in_body] = DETACHED_TENSOR  # ``if not p.requires_grad:``: no graph to bring
                self.no_grad = outer_no_grad or trains_in == "orelse"
                marks = self._event_marks()
                tested = _tested_for_none(node.test)
                if tested is not None:
                    self.when_none.append(tested)
                flag = self._flag_parameter(node.test)
                if flag is not None:
                    self.flag_guards.append(flag)
                tested_tensor = self._tensor_guard_parameter(node) if self.tensor_guard is None else None
                self._block(_body(node.body))
                if tested_tensor is not None:
                    self.tensor_guard = (tested_tensor, list(self.returns))
                if flag is not None:
                    self.flag_guards.pop()
                if tested is not None:
                    self.when_none.pop()
                if trains_in == "orelse":
                    self._drop_held(marks)
                self.no_grad = outer_no_grad
                self._restore_narrowed(saved)
            self.no_grad = outer_no_grad or trains_in == "body"
            marks = self._event_marks()
            no_grad_in_else = _requires_no_grad_where(node.test, False) if node.orelse is not None else None
            held_before_else = self.env.get(no_grad_in_else) if no_grad_in_else is not None else None
            if no_grad_in_else is not None:
                # ``if param.requires_grad: ... else: s_param.copy_(param)``: no graph there
                self.env[no_grad_in_else] = DETACHED_TENSOR
            not_tensor = self._tensor_test(node.test) if node.orelse is not None else None
            held_before_not_tensor = self.env.get(not_tensor) if not_tensor is not None else None
            if not_tensor is not None:
                # ``if isinstance(v, torch.Tensor): value = v.item() else: value = v``: no tensor there
                self.env[not_tensor] = NUMBER
            if type(node.orelse) is cst.If:
                self._statement(node.orelse)
            elif node.orelse is not None:
                self._block(_body(node.orelse.body))
            if not_tensor is not None:
                self._restore_narrowed({not_tensor: held_before_not_tensor}, (NUMBER,))
            if no_grad_in_else is not None:
                self._restore_narrowed({no_grad_in_else: held_before_else}, (DETACHED_TENSOR,))
            if trains_in == "body":
                self._drop_held(marks)
            self.no_grad = outer_no_grad
            self.guards.pop()
            self.branch_depth -= 1
        elif type(node) is cst.With:
            self._with(node)
        elif type(node) is cst.Try or type(node) is cst.TryStar:
            self._block(_body(node.body))
            for handler in node.handlers:
                self._block(_body(handler.body))
            if node.orelse is not None:
                self._block(_body(node.orelse.body))
            if node.finalbody is not None:
                self._block(_body(node.finalbody.body))
        elif type(node) is cst.FunctionDef:
            self.local_names.add(node.name.value)
            inner = self.walk_function(node, inherited_no_grad=self.no_grad)
            for call in self.context.body(node).calls:
                # a closure calling this function's parameter (``radiance_field(positions, dirs)``
                # in an ``rgb_sigma_fn`` handed to a renderer) calls it for this function
                if type(call.func) is cst.Name and call.func.value in self.parameters and call.func.value not in inner.summary.parameters:
                    self.called_parameters.add(self.parameters.index(call.func.value))
        elif type(node) is cst.ClassDef:
            methods = [statement for statement in _body(node.body) if type(statement) is cst.FunctionDef]
            # (a method that others of the class call on ``self`` is walked from its first caller,
            # whose walk has bound what it reads: ``self.mb_output`` in ``_after_training_iteration``)
            called = {method_on_self(call.func) for method in methods for call in self.context.body(method).calls} - {None}
            for statement in sorted(methods, key=lambda method: method.name.value in called):
                self.walk_function(statement, inherited_no_grad=False)
        elif type(node) is cst.Match:
            self.evaluate(node.subject)
            for case in node.cases:
                self._block(_body(case.body))

    def _small_statement(self, node: cst.BaseSmallStatement) -> None:
        if type(node) is cst.Assign:
            value = self.evaluate(node.value)
            for target in node.targets:
                if type(target.target) is cst.Attribute and target.target.attr.value == "requires_grad":
                    self._becomes_leaf(target.target.value, type(node.value) is cst.Name and node.value.value == "True")
                    continue
                self._bind(target.target, node.value, value, node)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                value = self.evaluate(node.value)
                if value.kind is Kind.UNKNOWN and not value.attached:
                    # ``self.policy: nn.Module = load(path)``: the annotation says what it is
                    declared = self._instance_of(self.context.aliases.qualify(node.annotation.annotation) or dotted(node.annotation.annotation))
                    value = declared if declared is not None else value
                self._bind(node.target, node.value, value, node)
        elif type(node) is cst.AugAssign:
            self._augmented(node)
        elif type(node) is cst.Expr:
            self._expression_statement(node.value)
        elif type(node) is cst.Return:
            value = self.evaluate(node.value) if node.value is not None else NONE
            self.returns.append(value)
            if node.value is not None:
                returned = mentions(node.value)
                self.function.consumed.update(returned)
                # (``return loss.data, mean.item()`` returns no graph of what they are computed from)
                # (stopping only at tensors and numbers known to hold none: an element read from a
                # list attribute the method sees empty is not known to be one)
                bindings = self.function.bindings
                no_graph = {b.key for b in bindings if b.value.detached and b.value.kind in (Kind.TENSOR, Kind.NUMBER)} - {
                    b.key for b in bindings if not (b.value.detached and b.value.kind in (Kind.TENSOR, Kind.NUMBER))
                }
                self.function.returned_keys.update(self.function.sources_of(_graph_mentions(node.value), stop=no_graph))
                if self.function.cls is not None and self.function.name.rsplit(".", 1)[-1] in vocab.FRAMEWORK_BACKWARDED_RETURNS:
                    # Lightning backwards what ``training_step`` returns, Hugging Face's Trainer
                    # what ``compute_loss`` returns: evidence as good as a ``.backward()`` here.
                    for key in _framework_loss_roots(node.value, self.context.aliases):
                        self.context.observations.backward_keys.append((self.function, key, self._loop_id(), True))
        elif type(node) is cst.Del:
            for key in mentions(node.target):
                self.env[key] = DETACHED
                self._write(key)
                self._binding(node, key, DETACHED, set())
            emptied = _emptied_by_del(node.target)
            outside = self._outside_target(emptied) if emptied is not None else None
            if outside is not None:
                # ``del self.states[:]`` empties the list its callers' objects keep, as ``.clear()`` does
                self._effect(Effect("reset", outside, DETACHED, self.function.name, "clear"))
        elif type(node) is cst.Raise or type(node) is cst.Assert:
            for part in (getattr(node, "exc", None), getattr(node, "test", None)):
                if isinstance(part, cst.BaseExpression):
                    self.evaluate(part)
        elif type(node) is cst.Global:
            pass

    def _drop_held(self, marks: tuple[int, ...]) -> None:
        """What the branch of the no-grad call keeps (since ``_event_marks``) holds no graph there
        (``out`` was computed before the branch, with grad only on the training call's path)."""
        function = self.function
        accumulations, stores, _backwards, bindings = marks[:4]
        del function.accumulations[accumulations:]
        del function.stores[stores:]
        function.bindings[bindings:] = [b for b in function.bindings[bindings:] if not (b.fed_to_call and b.value.attached)]

    def _trains_by_default(self, call: cst.BaseExpression) -> bool:
        """``with torch.set_grad_enabled(track_gradient):`` in ``def regression(self, data,
        track_gradient=True)`` (or with no default) whose result a caller backwards: the
        training call leaves the default or passes ``True``, so what the block computes is
        attached there; a call passing ``False`` computes nothing attached."""
        assert type(call) is cst.Call
        flag = call.args[0].value
        if type(flag) is not cst.Name or flag.value not in self.parameters:
            return False
        definition = self.function.node
        if type(definition) is not cst.FunctionDef:
            return False
        param = next((p for p in (*definition.params.params, *definition.params.kwonly_params) if p.name.value == flag.value), None)
        if param is None or param.default is not None and not (type(param.default) is cst.Name and param.default.value == "True"):
            return False  # (no default: each call says, ``compute_loss(..., is_training=True)`` in the training loop)
        if self.function.name in self.context.evidence.backwarded_results or self.function.name in self.context.externals.backwarded_by_importers:
            self.function.summary.grad_parameter = self.parameters.index(flag.value)
            return True
        return False

    def _restore_narrowed(self, saved: dict[str, Optional[Value]], narrowed: tuple[Value, ...] = (NUMBER, DETACHED_TENSOR)) -> None:
        """After a branch that narrowed each key of ``saved`` (to one of ``narrowed``: a number,
        a tensor that requires no grad), what it held before, unless the branch rebound it."""
        for key, previous in saved.items():
            if any(self.env.get(key) is value for value in narrowed):
                if previous is None:
                    self.env.pop(key, None)
                else:
                    self.env[key] = previous

    def _branch_that_trains(self, node: cst.If) -> Optional[str]:
        """In a function called with grad and, elsewhere, under no_grad, an ``if`` on one of its
        parameters (``if not cross_valid:``) whose one branch backwards: "body" or "orelse",
        the branch that trains; the other is the path of the no-grad call."""
        if not self.shared_with_no_grad or self.no_grad or node.orelse is None:
            return None
        if not mentions(node.test) & set(self.parameters):
            return None
        body, orelse = _backwards_in(node.body), _backwards_in(node.orelse)
        if body == orelse:
            return None
        return "body" if body else "orelse"

    def _expression_statement(self, expression: cst.BaseExpression) -> None:
        if type(expression) is cst.Call:
            mode = self._grad_mode(expression, statement=True)
            if mode == "off" and _switches_on_a_variable(expression) and _backwards_in(self.function.node):
                mode = "on"  # ``torch.set_grad_enabled(loader.training)`` in a function that backwards: it trains
            if mode is not None:  # torch.set_grad_enabled(False) switches the rest of the body
                self.no_grad = mode == "off"
        if type(expression) is cst.Yield and isinstance(expression.value, cst.BaseExpression):
            self.function.consumed.update(mentions(expression.value))
            self.returns.append(self.evaluate(expression.value))
            return
        if type(expression) is cst.Call and not _is_logging(expression):
            # A call made for its effect may keep or differentiate what it is given.
            for arg in expression.args:
                self.function.consumed.update(mentions(arg.value))
        self.evaluate(expression)

    def _averaged_in_helper(self, call: cst.Call, given: Optional[Collection[int]]) -> Optional[tuple[Function, cst.CSTNode]]:
        """The helper of the file that ``call`` hands a state to, and its statement that folds
        into that state, as a moving average, a graph the helper computes itself, before
        returning it (``ma_et = (1 - r) * ma_et + r * torch.mean(et)``; ``return mi, ma_et``)."""
        callee = self._walked_callee(call)
        if callee is None or given is None or len(given) != 1:
            return None
        (position,) = tuple(given)
        if position >= len(callee.summary.parameters):
            return None
        name = callee.summary.parameters[position]
        returns = [node.value for node in own_returns(callee.node) if node.value is not None] if type(callee.node) is cst.FunctionDef else []
        if not returns or not all(_holds_bare(value, name) for value in returns):
            return None
        averages = [binding for binding in callee.bindings if binding.key == name and decays_itself(binding.node, name)]
        if len(averages) != 1 or not averages[0].value.attached or averages[0].loop is not None:
            return None
        return callee, averages[0].node

    def _walked_callee(self, call: cst.Call) -> Optional[Function]:
        """The walk of the file's function ``call`` runs, when it was walked."""
        definition = self._resolve(call.func, call.args)
        return self.context.walked.get(id(definition)) if definition is not None else None

    def _replaced_on_entry(self, call: cst.Call) -> set[int]:
        """Positions of the parameters the file's function ``call`` runs rebinds, first thing, to
        a value without the argument's graph (``_parameters_cut_on_entry``)."""
        walked = self._walked_callee(call)
        return _parameters_cut_on_entry(walked) if walked is not None else set()

    def _binding(
        self, node: cst.CSTNode, key: str, value: Value, sources: set[str], fed: bool = False, via: str = "", in_callee: str = "",
        keeps_history: bool = False, helper: str = "", retained_in: str = "",
    ) -> None:
        event = Binding(
            node, self.context.next_seq(), self.loop, self.function, key, value, frozenset(sources), fed, via, self.branch_depth, in_callee,
            keeps_history, key in self.when_none, helper, retained_in,
        )
        self._locate(node)
        self.function.bindings.append(event)

    def _bind(
        self, target: cst.BaseExpression, value_node: cst.BaseExpression, value: Value, statement: cst.CSTNode, position: Optional[int] = None
    ) -> None:
        """``target = value_node``; ``position``: the position ``target`` unpacks from a tuple value."""
        if type(target) is cst.Tuple or type(target) is cst.List:
            if (type(value_node) is cst.Tuple or type(value_node) is cst.List) and len(value_node.elements) == len(target.elements):
                for t, v in zip(target.elements, value_node.elements):
                    self._bind(t.value, v.value, self.values.get(id(v.value), value), statement)
                return
            starred = any(type(element) is cst.StarredElement for element in target.elements)
            # ``loss, parts = compute_loss(pred, y)`` from a loss callable the file does not show:
            # the loss is attached, what comes with it (logged parts) is not known to be.
            loss_call = value.elements is None and self._is_unseen_loss_call(value_node)
            for index, element in enumerate(target.elements):
                part = _unpacked(value, target.elements, index) if starred else value.element(index)
                if value.elements is None and _holds_no_graph(value):
                    part = DETACHED  # ``grad, = torch.autograd.grad(loss, x)``: as ``grad = ...[0]`` is
                if loss_call and index > 0 and part.attached:
                    part = replace(part, state=State.UNKNOWN)
                self._bind(element.value, value_node, part, statement, None if starred else index)
            return
        if type(target) is cst.StarredElement:
            self._bind(target.value, value_node, value, statement)
            return
        if type(target) is cst.Subscript:
            self._subscript_store(target, value_node, value, statement)
            return
        key = dotted(target)
        if key is None:
            return
        if type(target) is cst.Name:
            self.local_names.add(key)
            base = value_node.value if type(value_node) is cst.Subscript else None
            # ``row = self._data[key]``: what is written into ``row`` is written into the
            # object's container (``row["total"] += value * n``)
            self._note_element_owner(key, dotted(base) if base is not None else None)
            if type(value_node) is cst.Call and self.context.aliases.qualify(value_node.func) == "functools.partial":
                self.partials[key] = value_node
            else:
                self.partials.pop(key, None)
            iterated = value_node.args[0].value if (
                type(value_node) is cst.Call and type(value_node.func) is cst.Name and value_node.func.value in ("iter", "next")
                and len(value_node.args) == 1 and value.kind is Kind.MODULE
            ) else None
            owner = dotted(iterated) if iterated is not None else None
            if owner is not None:  # ``layer = next(layers)`` over ``iter(flow)``: one of flow's modules
                self.module_aliases[key] = self.module_aliases.get(owner, owner)
        if value.state is State.UNKNOWN and self._is_backwarded(key):
            value = replace(value, state=State.ATTACHED)  # the file backwards it: it holds a graph
        previous = self.env.get(key)
        if (value == UNKNOWN or value.kind is Kind.NONE and self.branch_depth) and previous is not None and previous.kind in (
            Kind.MODULE, Kind.INSTANCE
        ) and previous.cls:
            # ``model = Net()`` then, on another path, ``model = checkpoint["model"]`` (or
            # ``load(model, path)``, or ``logger = None`` off rank 0): still that kind of object,
            # as far as the file shows
            value = previous
        if value.kind is Kind.UNKNOWN and self._is_method_reference(value_node):
            self.method_references.add(key)
        else:
            self.method_references.discard(key)
        sources = mentions(value_node)
        state_update = False
        if value.attached and key in sources:
            state_update = self._self_referential_update(target, key, value_node, statement)
        elif value.params and key in sources and not self._in_batch_loop() and not {key, f"*{key}", f"**{key}"} & set(self.parameters):
            # (rebinding a parameter's own name, ``pos_embed = torch.cat([prefix, pos_embed])``,
            # changes nothing the caller holds)
            outside = self._outside_target(key)
            if outside is not None and any(dotted(leaf) == key for leaf in arithmetic_leaves(value_node)):
                self._effect(Effect("accumulate", outside, value, self.function.name, _sum_method(statement, key)))
        call = _strip_access(value_node)
        if type(call) is cst.IfExp:
            # ``logits = new if logits is None else torch.cat([logits, new])``: the branch that
            # builds on what the name held
            for branch in (call.orelse, call.body):
                inner = _strip_access(branch)
                if type(inner) is cst.Call and _concatenates_onto(inner, key, self.context.aliases):
                    call = inner
                    break
        # (``out, self.h = self.rnn(x, self.h.detach())``: given detached, it chains nothing)
        fed = type(call) is cst.Call and any(key in mentions(arg.value, through_detach=False) for arg in call.args)
        # ``best = evaluate(model, best)`` keeps or replaces best, never builds on it
        given = self._parameters_given(call, key) if fed and isinstance(call, cst.Call) else None
        summary = self.context.applied.get(id(call)) if given else None
        selected = summary is not None and given is not None and given <= summary.returned_unchanged
        if summary is not None and given is not None and given <= summary.accumulated_parameters:
            selected = True  # ``total = step(batch, total)`` where step sums into it: its effect is the accumulation
        # ``loss, hidden = train_chunk(model, hidden, x)`` whose first line is ``hidden = repackage(hidden)``
        replaced = summary is not None and bool(given) and type(call) is cst.Call and given <= self._replaced_on_entry(call)  # type: ignore[operator]
        if type(call) is cst.Call and _concatenates_onto(call, key, self.context.aliases):
            # ``acc = torch.cat([acc, x])`` grows acc by x every iteration: a store, not a state;
            # unless the object's methods compute from it (a memory its forward attends to,
            # ``self.memory = torch.cat([out, self.memory])``): a state the next call builds on
            fed = (
                (value.attached or bool(value.params)) and key.startswith("self.") and key.count(".") == 1
                and self.function.cls is not None and self.context.reads_back(self.function.cls, key[len("self."):])
            )
            others = [e.value for e in call.args[0].value.elements if _root_key(e.value) != key]  # type: ignore[attr-defined]
            kept = [node for node in others if self.values.get(id(node), UNKNOWN).attached or self.values.get(id(node), UNKNOWN).params]
            if kept and not fed:
                self._store(statement, target, key, "cat", kept[0], self.values[id(kept[0])], frozenset({"<cat>"}))
        elif type(call) is cst.Call and (_is_sum_of_list(call, key) or _elementwise_sum(call) is not None):
            fed = False
        fed_from = self._fed_from(value_node)
        if value.attached and key in fed_from and not fed and self.loop is not None:
            # ``out, (h, c) = lstm(x, carry); carry = (h, c)``: the new value came out of a
            # forward that was given the old one, through other names of this iteration.
            fed = not _concatenates_onto(call, key, self.context.aliases) if isinstance(call, cst.Call) else True
        if value.attached and _rebuilt_from_its_elements(value_node, key) and self._folds_in_a_graph(value_node, key) and not any(
            accumulation.node is statement for accumulation in self.function.accumulations  # (``[t + l for t, l in zip(totals, losses)]``: a sum)
        ):
            fed = True  # ``self.fast_weights = [w - lr * g for w, g in zip(self.fast_weights, grads)]``
        fed = (fed or state_update) and not selected and not replaced
        if not fed and key not in sources and self._derived_from_own_attribute(key, value, value_node):
            fed = True
        if type(call) is cst.Call and type(call.func) is cst.Attribute and dotted(call.func.value) == key:
            fed = fed or value.attached and call.func.attr.value not in vocab.DETACHING_METHODS and (
                call.func.attr.value not in vocab.RESHAPING_METHODS  # ``memory = memory.to(device)``
            )
        averaged = self._averaged_in_helper(call, given) if fed and value.attached and type(call) is cst.Call else None
        if averaged is not None:
            # ``mi, ma_et = learn_mine(batch, ..., ma_et)`` where the helper returns its moving
            # average of what it computes: the state is carried there, where the fix goes
            helper, average = averaged
            self._binding(average, key, value, sources, True, in_callee=helper.name)
            top = self.context.def_tops.get(id(helper.node))
            if top is not None:
                self.context.facts.top_of[id(average)] = top
            return
        self._binding(statement, key, value, sources, fed)
        arguments = self._element_arguments(value_node, position)
        if self.no_grad and value.detached and self.values.get(id(value_node), value).detached:
            pass  # (computed under no_grad: no graph of its sources flows into it)
        elif arguments is None:
            self._flow(self._graph_sources(value_node), key)
        else:  # ``imgs, labels, total = step(imgs, labels, total)``: each element from its own arguments
            assert isinstance(value_node, cst.Call)
            self._flow(mentions(value_node.func).union(*(self._graph_sources(arg) for arg in arguments)), key)
        # (an element of a loader is data, not its output; one of a list of attached values is not)
        if not (type(statement) is cst.For or type(statement) is cst.CompFor) or value.attached:
            for source_node in [value_node] if arguments is None else arguments:
                self._data_flow(source_node, key)
        if not (type(statement) is cst.For and value_node is not statement.iter):
            # (a target ``for`` pairs with one iterable of a ``zip``: an element of it, not its result)
            self._record_call_result(key, value_node, position)
        if type(target) is cst.Attribute and value.attached:
            self.function.consumed.update(sources)  # it leaves the function through an attribute
        if type(target) is cst.Attribute and target.attr.value == "grad" and (
            type(value_node) is cst.Name and value_node.value == "None"
        ):
            self.function.grad_resets.append(GradReset(statement, self.context.next_seq(), self.loop, self.function, key[: -len(".grad")]))
        if key.startswith("self.") and self.function.cls is not None and key.count(".") == 1:
            if fed and self._bound_fresh_in_this_call(key, statement):
                # ``self._loss = self.loss_pde(...); self._loss = self._loss + w * bc``: the
                # update reads this call's value, not the one the object carried in
                fed = False
            self._note_attribute(key[len("self."):], value, fed, statement)
        elif type(target) is cst.Attribute and key.count(".") == 1 and value.attached and not self._in_batch_loop():
            # ``state.hidden = hidden`` on an object the function is given: the caller's object
            # holds the graph now (a decoder state carried into the next window)
            outside = self._outside_target(key)
            # (computed from what the attribute held: a fresh epoch's sum put in
            # ``params.train_loss`` holds one graph, it chains none)
            if outside is not None and argument_position(outside) is not None and key in self.function.sources_of(mentions(value_node)):
                self._effect(Effect("carry", outside, value, self.function.name))
        elif (
            key.startswith("self.") and key.count(".") == 2 and self.function.cls is not None
            and (value.detached or value.kind is Kind.NONE) and not self._in_batch_loop()
        ):
            # ``self.ac.actor_rnn_hidden = None`` in ``reset_rnn_hidden``: the held object's state
            # is reset at every call, as ``self.h = None`` resets the object's own
            self._effect(Effect("reset", key, value, self.function.name))
        self.env[key] = value
        if self.loops:
            self.fed_from[key] = fed_from
        self._write(key)

    def _graph_sources(self, node: cst.CSTNode) -> set[str]:
        """``mentions(node, through_detach=False)``, less what the walk knows holds no graph:
        numbers (``len(batches)``, ``x.size(0)``) and entries of a container (``s["t"]`` of
        ``{"t": t, "log_prob": lp}``)."""
        # (``_names_read`` with that test inlined: it runs for every node of every value bound)
        values = self.values
        cut = self.context.cut_arguments
        found: set[str] = set()
        stack: list[cst.CSTNode] = [node]
        while stack:
            current = stack.pop()
            if id(current) in cut:
                continue  # an argument whose graph the call's result does not carry
            kind = type(current)
            if kind is cst.Name:
                found.add(current.value)  # type: ignore[attr-defined]
                continue
            if kind is cst.Attribute:
                key = dotted(current)  # type: ignore[arg-type]
                if key is not None:
                    found.update(key_prefixes(key))
                    continue
            elif kind is cst.Call or kind is cst.Subscript:
                if kind is cst.Call and _is_cutting_call(current):  # type: ignore[arg-type]
                    continue
                value = values.get(id(current))
                if value is not None and value.detached and (
                    value.kind is Kind.NUMBER or kind is cst.Subscript and value.kind is Kind.TENSOR
                ):
                    continue
            elif kind in _COMPREHENSIONS:
                # (its ``for`` names live only inside it: ``_comprehension_reads``)
                found |= _comprehension_reads(current, None, self._graph_sources)  # type: ignore[arg-type]
                continue
            stack.extend(_expression_children(current))
        return found

    def _element_arguments(self, value_node: cst.BaseExpression, element: Optional[int]) -> Optional[list[cst.BaseExpression]]:
        """For position ``element`` of a call's tuple result, the arguments that position is
        computed from, as the callee's summary says; None when that is not known."""
        if element is None or type(value_node) is not cst.Call:
            return None
        summary = self.context.applied.get(id(value_node))
        if summary is None or summary.returns.elements is None or summary.returns.open_tail or summary.returns.keys is not None:
            return None
        part = summary.returns.element(element)
        positions = set(part.params) | self._element_sources(value_node, element)
        if part.attached and not positions:
            return None  # (a graph the callee computed, from which arguments its value no longer says)
        found = []
        for index in sorted(positions):
            argument = argument_at(value_node, summary, index)
            if argument is None:
                return None  # (``*args``: any of them)
            found.append(argument)
        return found

    def _element_sources(self, call: cst.Call, element: int) -> set[int]:
        """The parameters of the file's function ``call`` runs whose data reaches position
        ``element`` of every tuple it returns (``temperature = ctl.update(x)`` returned beside the
        loss: ``ctl``), by the callee's own data flow, which follows what values forget."""
        callee = self._walked_callee(call)
        if callee is None or type(callee.node) is not cst.FunctionDef:
            return set()
        reached: set[str] = set()
        for statement in own_returns(callee.node):
            value = statement.value
            if type(value) is not cst.Tuple or element >= len(value.elements):
                return set()
            names = data_mentions(value.elements[element].value)
            reached |= callee.sources_of(names, data_only=True) | names
        roots = {key.split(".", 1)[0] for key in reached}
        return {index for index, name in enumerate(callee.summary.parameters) if name in roots and name not in ("self", "cls")}

    def _parameters_given(self, call: cst.Call, key: str) -> Optional[set[int]]:
        """The positions of the applied summary's parameters that receive an argument mentioning
        ``key``; None when the call has no summary or such an argument goes to none of them."""
        summary = self.context.applied.get(id(call))
        if summary is None:
            return None
        given = {id(arg.value) for arg in call.args if key in mentions(arg.value)}
        positions: dict[int, int] = {}
        for index in range(len(summary.parameters)):
            argument = argument_at(call, summary, index)
            if argument is not None and id(argument) in given:
                positions[id(argument)] = index
        return set(positions.values()) if given <= positions.keys() else None

    def _derived_from_own_attribute(self, key: str, value: Value, value_node: cst.BaseExpression) -> bool:
        """``mem = beta * self.mem + x; self.mem = mem - spikes`` or ``out = self.model(t,
        past=self.past); self.past = out.past``: a method rebinds an attribute of its object to
        a value computed, through other names of this call, from the attribute's previous value
        (a state the object carries from one call to the next)."""
        if not key.startswith("self.") or key.count(".") != 1 or self.function.cls is None:
            return False
        if not (value.attached or value.params) or self.function.summary.name.endswith("__init__"):
            return False
        read = {prefix for name in data_mentions(value_node) for prefix in key_prefixes(name)}
        return key in self.function.sources_of(read, data_only=True)

    def _fed_from(self, node: cst.BaseExpression) -> frozenset[str]:
        """The names whose values reached ``node`` through a forward call's arguments in this
        iteration (``past`` for ``outputs.past_key_values`` after ``outputs = model(past=past)``)."""
        if not self.loops:
            return frozenset()
        found: set[str] = set()
        for name in data_mentions(node):
            for prefix in key_prefixes(name):
                found |= self.fed_from.get(prefix, frozenset())
        if _is_alias(node):
            found |= data_mentions(node)  # ``h_in = h_out``: the same value under another name
        for call in _calls_in(node):
            qualified = self.context.aliases.qualify(call.func) or ""
            if qualified.startswith(("torch.", "math.", "numpy.")) or qualified in vocab.PASSING_BUILTINS or qualified == "map" or (
                type(call.func) is cst.Attribute and not (type(call.func.value) is cst.Name or type(call.func.value) is cst.Attribute)
            ):
                continue  # tensor arithmetic, not a forward pass
            receiver = dotted(call.func.value) if type(call.func) is cst.Attribute else None
            if receiver is not None and self.env.get(receiver, UNKNOWN).kind in (Kind.TENSOR, Kind.CONTAINER, Kind.TUPLE):
                continue
            for arg in call.args:
                for name in data_mentions(arg.value):
                    found.add(name)
                    found |= self.fed_from.get(name, frozenset())
            found |= self._state_read_by(call)
        return frozenset(found)

    def _state_read_by(self, call: cst.Call) -> set[str]:
        """``model.state`` for ``model(x)`` when the forward of ``model``'s module class (of the
        file) reads ``self.state``: the module's own state goes into the call as an input does."""
        owner = dotted(call.func)
        if owner is None:
            return set()
        cls = self.env.get(owner, UNKNOWN).cls
        if cls is None or cls not in self.context.classes or not self.context.classes[cls].is_module:
            return set()
        forward = self.context.method(cls, "forward")
        if forward is None:
            return set()
        read = self.context.body(forward).attributes_read.get("self", set())
        return {
            f"{owner}.{attribute}" for attribute in read - _GENERIC_MEMBERS
            # (submodules are not state, a base class's ``self.model`` included)
            if (self._recorded_attribute(cls, attribute) or UNKNOWN).kind not in _OBJECT_KINDS
        }

    def _bound_fresh_in_this_call(self, key: str, statement: cst.CSTNode) -> bool:
        """An earlier statement of this function, on every path (no branch, no loop), bound
        ``key`` to a value not computed from its previous one."""
        return any(
            binding.key == key and binding.node is not statement and binding.branch_depth == 0 and binding.loop is None
            and not binding.fed_to_call and key not in binding.mentions
            for binding in self.function.bindings
        )

    def _note_attribute(self, attribute: str, value: Value, fed: bool, statement: cst.CSTNode) -> None:
        """``self.x = ...`` in a method: what the class's attribute holds, and the effect on it."""
        attributes = self.context.facts.attributes
        cls = self.function.cls
        assert cls is not None
        known = attributes.get((cls, attribute))
        if value.kind in _OBJECT_KINDS and known is not None and known.kind is value.kind and known.cls and value.cls and known.cls != value.cls:
            # ``self.kl_ctl = AdaptiveKLController(...)`` on one branch, ``FixedKLController(...)``
            # on the other: an object of either class
            attributes[(cls, attribute)] = join_returned(known, value)
        elif value.kind in _OBJECT_KINDS:
            attributes[(cls, attribute)] = value
        elif self.function.summary.name.endswith("__init__") and (
            known is None or (value.kind is Kind.CONTAINER and value.elements and all(e.is_module for e in value.elements))
        ):
            # (a plain list of modules built up in ``__init__`` is known by its modules)
            attributes[(cls, attribute)] = replace(value, params=frozenset())
        if self.function.summary.name.endswith("__init__"):
            return
        if fed and (value.attached or value.params):
            if not self._rewritten_from_its_carry(f"self.{attribute}", statement):
                self._effect(Effect("carry", f"self.{attribute}", value, self.function.name))
        elif value.params - {0} and not value.attached:
            # ``def update_state(self, hidden): self.hidden = hidden``: the object keeps what it is
            # given; a carry at a call whose argument came out of a forward given the object.
            self._effect(Effect("set", f"self.{attribute}", value, self.function.name))
        elif value.attached and not self._in_batch_loop():
            # ``self.loss_G_A = self.criterionGAN(...)`` in ``backward_G``: after the call, the
            # caller's object holds that graph (``model.loss_G_A``, read by the training loop)
            self._effect(Effect("set", f"self.{attribute}", value, self.function.name))
        elif (value.detached or value.kind is Kind.NONE) and not any(f"self.{attribute}" in guard for guard in self.guards):
            # (one guarded by a test of the attribute itself builds it once, lazily: no reset per call)
            self._effect(Effect("reset", f"self.{attribute}", value, self.function.name))

    def _rewritten_from_its_carry(self, key: str, statement: cst.CSTNode) -> bool:
        """``self.prototypes = F.normalize(self.prototypes)`` computed from the state alone, after
        this function already carried a graph into it: no graph of its own, and the fix of that
        carry fixes it (one finding, where the graph comes in; as a call site applies it)."""
        return _only_rescales(statement, key, self.context.aliases) and any(
            effect.kind == "carry" and effect.target == key for effect in self.function.summary.effects
        )

    def _folds_in_a_graph(self, value_node: cst.BaseExpression, key: str) -> bool:
        """Some operand of the elements ``value_node`` rebuilds ``key`` from, other than ``key``'s
        own entries, has a graph (``g`` in ``w - lr * g``; not ``l.item()`` in ``t + l.item()``)."""
        element = value_node.elt if type(value_node) in (cst.ListComp, cst.GeneratorExp) else value_node  # type: ignore[attr-defined]
        entries = zipped_with(value_node.for_in, key) if type(value_node) is cst.ListComp else set()
        return any(
            self.values.get(id(leaf), UNKNOWN).attached
            for leaf in arithmetic_leaves(element)
            if not (type(leaf) is cst.Name and leaf.value in entries) and _root_key(leaf) != key
            and not (type(leaf) is cst.Subscript and dotted(leaf.value) == key)
        )

    def _self_referential_update(
        self, target: cst.BaseExpression, key: str, value_node: cst.BaseExpression, statement: cst.CSTNode
    ) -> bool:
        """``acc = acc + loss`` is an accumulation written out; ``ema = 0.9 * ema + 0.1 * feat``
        of a value that is not a loss is a state carried into the next iteration (True)."""
        leaves = arithmetic_leaves(value_node)
        if not any(dotted(leaf) == key for leaf in leaves):
            if type(value_node) is cst.Call and _is_sum_of_list(value_node, key):
                leaves = [element.value for element in value_node.args[0].value.elements]  # type: ignore[attr-defined]
            else:
                self._summed_by_comprehension(statement, target, key, value_node)
                return False
        others = [leaf for leaf in leaves if dotted(leaf) != key]
        attached = [leaf for leaf in others if self.values.get(id(leaf), UNKNOWN).attached]
        if attached and any(dotted(term) == key for term in additive_terms(value_node)) and any(
            self._feeds_backward(leaf) for leaf in attached
        ):
            # ``total = total + losses`` where ``losses`` goes on to be backwarded: a sum of losses
            value = self.values[id(attached[0])]
            if _sequence_operands(value_node) & {id(leaf) for leaf in attached}:
                value = replace(value, kind=Kind.CONTAINER)  # zipped: a sequence of losses, not one tensor
            self._written_out_sum(statement, target, key, attached[0], value)
            return False
        if not attached:
            # ``adv = adv + alpha * grad.sign()``: a state that is itself attached grows by one
            # node of graph per iteration (a sum of losses is the accumulation rules' business).
            previous = self.env.get(key, UNKNOWN)
            return previous.records_graph and not previous.double_backward and not self._is_loss_like(target)
        summed = any(dotted(term) == key for term in additive_terms(value_node))
        if decays_itself(statement, key):
            # ``ema = 0.98 * ema + 0.02 * loss``: a moving average, even of a loss, is a state
            # each iteration computes from the last (its fix is at the update, not a total's)
            return True
        if not any(self._is_loss_like(leaf) for leaf in attached) and not (summed and self._only_summed_in_loop(key, statement)):
            return True
        value = self.values[id(attached[0])]
        self._written_out_sum(statement, target, key, attached[0], value)
        return False

    def _summed_by_comprehension(self, statement: cst.CSTNode, target: cst.BaseExpression, key: str, value_node: cst.BaseExpression) -> None:
        """``totals = {k: totals.get(k, 0.0) + v for k, v in losses.items()}`` (or a list over
        ``zip(totals, losses)``): each entry adds an attached value to what the name held."""
        if type(value_node) is cst.DictComp:
            element: cst.BaseExpression = value_node.value
        elif type(value_node) is cst.ListComp:
            element = value_node.elt
        else:
            return
        terms = additive_terms(element)
        entries = zipped_with(value_node.for_in, key)  # ``t`` of ``for t, l in zip(totals, losses)``
        if len(terms) < 2 or not any(_reads_entry_of(term, key) or (mentions(term) & ({key} | entries)) for term in terms):
            return
        attached = [
            term for term in terms
            if not mentions(term) & ({key} | entries) and self.values.get(id(term), UNKNOWN).attached
            and not self.values[id(term)].double_backward
        ]
        if attached:
            self._written_out_sum(statement, target, key, attached[0], replace(self.values[id(attached[0])], kind=Kind.CONTAINER))

    def _written_out_sum(self, statement: cst.CSTNode, target: cst.BaseExpression, key: str, operand: cst.BaseExpression, value: Value) -> None:
        """``total = total + loss`` (or a running mean of a loss, ``avg = 0.95 * avg + 0.05 *
        loss``): an accumulation, and, into state that outlives the call, an effect of the
        function as ``+=`` is, so that the loop calling it is the one that leaks."""
        self._accumulation(statement, target, key, "=", operand, value)
        outside = self._outside_target(key)
        if outside is not None and not self._in_batch_loop():
            self._effect(Effect("accumulate", outside, value, self.function.name, _sum_method(statement, key)))

    def _only_summed_in_loop(self, key: str, statement: cst.CSTNode) -> bool:
        """Nothing in the loop but this sum, a reset and logging reads ``key``: a running total
        (``total = total + s``, as ``total += s``), not a state the next iteration computes
        with (``x = x + update`` then ``model(x)``)."""
        loop = self.loop
        if loop is None or not isinstance(loop.node, (cst.For, cst.While)):
            return False
        for node in subtree(loop.node.body):
            if node is statement or type(node) is cst.FunctionDef or type(node) is cst.ClassDef or type(node) is cst.Lambda:
                continue
            if type(node) is cst.If or type(node) is cst.While:
                read = key in mentions(node.test)
            elif type(node) is cst.Expr and type(node.value) is cst.Call and _is_logging(node.value):
                continue
            elif type(node) is cst.Assign or type(node) is cst.AugAssign or type(node) is cst.AnnAssign:
                read = node.value is not None and key in mentions(node.value)  # (``total = 0`` resets it)
            elif _is_small_statement(type(node)):
                read = key in mentions(node)
            else:
                continue
            if read:
                return False
        return True

    def _feeds_backward(self, node: cst.BaseExpression) -> bool:
        feeds = self.context.evidence.feeds_backward
        return any((scope, key) in feeds for name in data_mentions(node) for scope, key in self._evidence_keys(name))

    def _is_method_reference(self, node: cst.BaseExpression) -> bool:
        """``obj.items`` (or ``a.items if c else b.__dict__.items``): a bound method, not a module."""
        if type(node) is cst.IfExp:
            return self._is_method_reference(node.body) and self._is_method_reference(node.orelse)
        return (
            type(node) is cst.Attribute and not self._is_evident_module(dotted(node))
            and not vocab.MODEL_NAME.match(node.attr.value)
        )

    def _is_unseen_loss_call(self, node: cst.BaseExpression) -> bool:
        """A call that is a loss by its name only (no summary, no loss class in sight)."""
        if type(node) is not cst.Call or self._resolve(node.func) is not None:
            return False
        key = dotted(node.func)
        if key is not None and self._lookup(key).kind in (Kind.LOSS_FUNCTION, Kind.MODULE, Kind.INSTANCE):
            return False
        name = self.context.aliases.qualify(node.func) or ""
        if name.startswith("torch."):
            return False
        # (``self.scorer(self.model, sample)``: a callable the file does not show, given the
        # model, runs it and computes the loss, whatever it is called)
        given_a_module = any(self.values.get(id(arg.value), UNKNOWN).kind is Kind.MODULE for arg in node.args)
        return given_a_module or self._is_loss_call(key, last_identifier(node.func) or "", name)

    def _is_loss_like(self, node: cst.BaseExpression) -> bool:
        """A loss: backwarded in this loop, or computed by a loss function."""
        if any(self._is_backwarded(key) for key in data_mentions(node)):
            return True
        for call in _calls_in(node):
            name = self.context.aliases.qualify(call.func) or ""
            identifier = last_identifier(call.func) or ""
            key = dotted(call.func)
            if self._is_loss_call(key, identifier, name) or (key is not None and self._lookup(key).kind is Kind.LOSS_FUNCTION):
                return True
        key = dotted(node)
        return key is not None and bool(vocab.LOSS_NAME.match(key.rsplit(".", 1)[-1]))

    def _accumulation(
        self,
        statement: cst.CSTNode,
        target: cst.BaseExpression,
        key: str,
        operator: str,
        value_node: cst.BaseExpression,
        value: Value,
        via: str = "",
        fixed_in: str = "",
        kept_by: str = "",
    ) -> None:
        self._locate(statement)
        helper = self.context.imported_forwards.get(id(_strip_access(value_node)))
        if not via and helper is not None:
            # ``total += policy_entropy(model, obs)``: a new graph per call, even from the same arguments.
            via = f"{helper.name} in {self.context.externals.shown(helper.module)} runs a forward and returns its graph"
        self.function.accumulations.append(
            Accumulation(statement, self.context.next_seq(), self.loop, self.function, target, key, operator, value_node, value, via, fixed_in, kept_by)
        )

    def _outside_target(self, key: str) -> Optional[str]:
        """How a summary names a key that outlives the call, or None for a local."""
        root = key.split(".", 1)[0]
        if root in self.element_owners:
            return self._outside_target(self.element_owners[root])
        if root == "self" and self.function.cls is not None:
            return key
        if root in self.parameters:
            rest = key[len(root):]
            return f"arg{self.parameters.index(root)}{rest}"
        if type(self.function.node) is cst.FunctionDef and root not in self.local_names:
            return key  # a global
        return None

    def _returned_global(self, definition: cst.FunctionDef) -> str:
        """The module-level name (or a class's attribute, ``Logger.CURRENT``) that every
        ``return`` of the function names, holding an object; "" otherwise."""
        returned = {dotted(node.value) if node.value is not None else None for node in own_returns(definition)}
        if len(returned) != 1:
            return ""
        key = returned.pop()
        if key is None or key.count(".") > 1:
            return ""
        root = key.split(".", 1)[0]
        if root in self.local_names or root in self.parameters or root in ("self", "cls"):
            return ""
        if "." in key and root not in self.context.classes:
            return ""  # (``Logger.CURRENT``: an attribute of a class of the file, not of a module)
        return key if self._lookup(key).kind is Kind.INSTANCE or self.context.global_instance_class(key) is not None else ""

    def _tensor_guard_parameter(self, node: cst.If) -> Optional[int]:
        """The parameter position an ``if`` at the top of the function body tests for being a
        tensor (``_tensor_test``: ``torch.is_tensor(x)``, ``isinstance(x, torch.Tensor)``) before
        returning, with no ``else``; None otherwise."""
        definition = self.function.node
        if type(definition) is not cst.FunctionDef or node.orelse is not None or self.loops or self.branch_depth != 1:
            return None
        body = _body(node.body)
        last = body[-1] if body else None
        if not (type(last) is cst.SimpleStatementLine and last.body and type(last.body[-1]) is cst.Return):
            return None
        name = self._tensor_test(node.test)
        return self.parameters.index(name) if name is not None and name in self.parameters else None

    def _flag_parameter(self, test: cst.BaseExpression) -> Optional[int]:
        """The position of the parameter an ``if`` tests as a flag that is off by default
        (``if track:``, ``if return_attention and self.training:``), or None."""
        node = self.function.node
        if type(node) is not cst.FunctionDef:
            return None
        conjuncts = [test]
        while conjuncts and type(conjuncts[0]) is cst.BooleanOperation and type(conjuncts[0].operator) is cst.And:
            first = conjuncts.pop(0)
            conjuncts[:0] = [first.left, first.right]  # type: ignore[attr-defined]
        names = {part.value for part in conjuncts if type(part) is cst.Name}
        for param in (*node.params.params, *node.params.kwonly_params):
            default = param.default
            if param.name.value in names and type(default) is cst.Name and default.value in ("False", "None"):
                return self.parameters.index(param.name.value) if param.name.value in self.parameters else None
        return None

    def _effect(self, effect: Effect, inner: Optional[cst.CSTNode] = None) -> Effect:
        """Record ``effect`` in the function's summary, at the branch depth it happens; the
        effect as recorded (``effect_nodes`` and ``effect_stores`` are keyed by it)."""
        if type(self.function.node) is cst.FunctionDef:
            effect = replace(
                effect, depth=effect.depth + self.branch_depth, in_batch_loop=effect.in_batch_loop or self._in_batch_loop(),
                per_entry=effect.per_entry or self._over_a_parameter(effect),
            )
            if self.flag_guards and effect.when_given < 0:
                effect = replace(effect, when_given=self.flag_guards[-1])
            if effect.kind == "reset" and effect.depth == 0 and effect.when_given < 0 and self.function.summary.effects:
                # (``self.proto = self.proto.detach()`` after the update, on every path: what
                # the call carried or kept there is gone when it returns)
                self.function.summary.effects[:] = [
                    earlier for earlier in self.function.summary.effects
                    if not (earlier.target == effect.target and earlier.kind in ("carry", "accumulate", "store"))
                ]
            self.function.summary.effects.append(effect)
            self.function.effect_nodes[id(effect)] = inner if inner is not None else self.statement
            self._locate(self.statement)
        return effect

    def _over_a_parameter(self, effect: Effect) -> bool:
        """The innermost loop runs over a parameter whose entries ``effect`` keeps
        (``for name, value in metrics.items():``)."""
        loop = self.loops[-1].node if self.loops else None
        if type(loop) is not cst.For or not effect.value.params:
            return False
        given = {self.parameters[index].lstrip("*") for index in effect.value.params if index < len(self.parameters)}
        return bool(mentions(loop.iter) & given)

    def _store(
        self,
        node: cst.CSTNode,
        container: cst.BaseExpression,
        key: str,
        method: str,
        value_node: cst.BaseExpression,
        value: Value,
        index: frozenset[str] = frozenset(),
    ) -> None:
        if value.attached:
            self._locate(node)
            self.function.stores.append(
                Store(node, self.context.next_seq(), self.loop, self.function, container, key, method, value_node, value, index)
            )
        outside = self._outside_target(key)
        if outside is not None and (value.attached or value.params) and not self._in_batch_loop():
            if method == "[]=" and not index:
                return  # one slot overwritten each call holds one value
            effect = self._effect(Effect("store", outside, value, self.function.name, method))
            if not value.attached and type(self.function.node) is cst.FunctionDef:
                self.function.effect_stores[id(effect)] = Store(
                    node, self.context.seq, self.loop, self.function, container, key, method, value_node, value, index
                )

    def _in_batch_loop(self) -> bool:
        """Inside a loop of this function that runs per batch: a store there is reported there,
        not again at every call of the function."""
        return any(not loop.per_batch_method and loop.is_batch_loop for loop in self.loops)

    def _subscript_store(
        self, target: cst.Subscript, value_node: cst.BaseExpression, value: Value, statement: cst.CSTNode
    ) -> None:
        container = self.evaluate(target.value)
        index: set[str] = set()
        for element in target.slice:
            if type(element.slice) is cst.Index:
                self.evaluate(element.slice.value)
            index |= mentions(element.slice)
        key = target_key(target)
        if key is None:
            return
        self._flow(self._graph_sources(value_node), key)  # (``status["ptx"] = float(total)`` holds none of total's graph)
        self._data_flow(value_node, key)  # (``outputs[t] = out``: what ``outputs`` holds is computed from ``out``)
        if container.kind is Kind.TENSOR and self.no_grad:
            return  # a write into a tensor under no_grad records nothing
        if container.kind is Kind.NUMBER:
            return  # ``vec = np.zeros(n)`` then ``vec[i] = loss``: numpy keeps the number, not the graph
        if container.kind is Kind.UNKNOWN and len(target.slice) >= 2 and any(type(element.slice) is cst.Slice for element in target.slice):
            # ``queue[i, :bs] = embedding``: only a tensor takes a slice along a second dimension
            container = replace(container, kind=Kind.TENSOR)
        if container.kind is Kind.TENSOR and (value.attached or value.params) and self._tensor_slot_blend(target, key, value_node, value):
            if value.attached:
                self.env[key] = replace(container, state=State.ATTACHED)
            elif value.params:
                # in a summary, the tensor now holds what the arguments give: ``self.prototypes =
                # F.normalize(self.prototypes)`` after a row is averaged with one is no reset
                self.env[key] = replace(container, params=container.params | value.params, state=State.UNKNOWN if container.detached else container.state)
            return
        if container.kind is Kind.TENSOR and (value.attached or value.params):
            # ``queue[:, ptr] = feats``: a write into a tensor keeps a link to what was written
            # and to the tensor's previous versions, overwritten slots included (a shift of the
            # tensor's own values, ``queue[i, bs:] = queue[i, :-bs].clone()``, brings no new graph)
            if key not in {name.split("[", 1)[0] for name in data_mentions(value_node)}:
                self._store(statement, target.value, key, "slice", value_node, value, frozenset({"<tensor>"}))
            if value.attached:
                self.env[key] = replace(container, state=State.ATTACHED)
            elif key in self.local_names and not container.attached:
                # in a summary: ``up = torch.zeros(s); up[:, :] = x`` holds what its argument holds
                self.env[key] = replace(container, params=container.params | value.params, state=State.UNKNOWN)
            return
        if (value.attached or value.params) and self._slot_update(target, key, value_node, value, statement):
            if value.attached:
                self.env[key] = replace(container, state=State.ATTACHED)
            return
        self._store(statement, target.value, key, "[]=", value_node, value, frozenset(index))
        if not value.attached and key.startswith("self.") and self._every_slot_of(key, index) and not self._in_batch_loop():
            # ``for node in self.messages: self.messages[node] = [m.detach() for m in ...]`` in a
            # method: every slot replaced by values without graph, a reset of what it holds
            self._effect(Effect("reset", key, value, self.function.name))
        if value.detached and not value.params and container.kind is Kind.CONTAINER and self._every_slot_of(key, index) and not self.branch_depth:
            # ``for k in losses.keys(): losses[k] = stat[k].get()``: every entry now holds what
            # was written (what the loop reads of it is the entry it just replaced)
            elements = tuple(value for _ in container.elements) if container.elements is not None else None
            self.env[key] = replace(container, state=value.state, elements=elements)
            return
        if container.keys is None and container.attached and value.detached and _detaches_own_slot(value_node, target) and self._is_backwarded(key):
            # ``output["loss"].backward()`` then ``output["loss"] = output["loss"].detach()``: the
            # entry that showed the dict to hold a graph no longer does; nothing shows another one
            self.env[key] = replace(container, state=State.UNKNOWN)
            return
        if container.keys is not None:
            literal = _literal_key(target, self.context.module_strings())
            # ``d["acc"] = acc.item()`` replaces one entry; a computed key may be any of them
            self.env[key] = container.with_entry(literal, value) if literal is not None else replace(
                container, elements=None, state=join(container, value).state if value.attached else container.state)
            return
        if value.attached:
            written = replace(container, state=State.ATTACHED, double_backward=value.double_backward and (container.double_backward or not container.attached))
            self.env[key] = join(container, written) if container.kind is Kind.CONTAINER else written
        elif value.params and container.kind is Kind.CONTAINER and key in self.local_names:
            # in a summary: ``out = {}; out["mse"] = mse(a, b); return out`` holds what its
            # arguments' graphs give, as the literal ``{"mse": mse(a, b)}`` would
            self.env[key] = replace(container, params=container.params | value.params, state=State.UNKNOWN if container.detached else container.state)

    def _tensor_slot_blend(self, target: cst.Subscript, key: str, value_node: cst.BaseExpression, value: Value) -> bool:
        """``cov[:, 0] = m * c + (1 - m) * cov[:, 0]``: a tensor's slot computed from its own
        previous content is an in-place update of that tensor, so the tensor carries every
        write's graph into the next one (a carried state, like ``cov.mul_(1 - m).add_(m * c)``)."""
        if not any(_reads_slot(leaf, target) for leaf in arithmetic_leaves(value_node)):
            return False
        if value.attached:
            self._binding(self.statement, key, ATTACHED, mentions(value_node), fed=True)
        outside = self._outside_target(key)
        if outside is not None:
            self._effect(Effect("carry", outside, value, self.function.name, "[]="))
        return True

    def _slot_update(
        self, target: cst.Subscript, key: str, value_node: cst.BaseExpression, value: Value, statement: cst.CSTNode
    ) -> bool:
        """``stats[k] = stats[k] + loss`` accumulates into a slot; ``ema[k] = 0.9 * ema[k] + 0.1 * x``
        of a value that is not a loss carries the slot's graph into the next iteration."""
        leaves = arithmetic_leaves(value_node)
        through = {id(leaf): _slot_read_into(self.function.node, leaf, target) for leaf in leaves}
        same = [leaf for leaf in leaves if _reads_slot(leaf, target) or through[id(leaf)] is not None]
        if not same:
            return False
        computed = next((through[id(leaf)] for leaf in same if through[id(leaf)] is not None and len(leaves) == 1), None)
        if computed is not None and not _bound_once(self.function.node, computed):
            computed = None  # (``state = self.h[i]``, then ``x, state = rnn(x, state)``: made by neither alone)
        if not value.attached:
            # In a summary: ``self.sums[k] = self.sums.get(k, 0) + v * n`` accumulates its argument.
            outside = self._outside_target(key)
            if outside is not None and not self._in_batch_loop():
                # (or averaged in a local first: ``new = mu * x + (1 - mu) * self.shadow[k]`` before
                # ``self.shadow[k] = new.clone()``)
                decays = decays_itself(statement, key) or computed is not None and decaying_increment(computed.value, key)
                moving = decays and not _weighted_by_a_count(statement, self.function.node)
                self._effect(Effect("accumulate", outside, value, self.function.name, DECAYING_SUM if moving else "+="))
            return True
        attached = [leaf for leaf in leaves if leaf not in same and self.values.get(id(leaf), UNKNOWN).attached]
        # a loss folded in, or a plain running total (``sums[k] = sums.get(k, 0) + v * n``, as
        # ``sums[k] += v * n`` is): an accumulation; a slot that scales its own old value is an average
        running_total = computed is None and all(_reads_slot(leaf, target) for leaf in same) and not decays_itself(statement, key)
        if attached and (any(self._is_loss_like(leaf) for leaf in attached) or running_total):
            self._accumulation(statement, target, key, "=", attached[0], self.values[id(attached[0])])
        else:
            # (``self.shadow[k] = new.clone()`` of an average computed just before: made there)
            made = computed if computed is not None else statement
            self._binding(made, key, value, mentions(value_node), fed=True)
            outside = self._outside_target(key)
            if outside is not None and not self._in_batch_loop() and not value.double_backward:
                # ``self.shadow[k] = d * self.shadow[k] + (1 - d) * p`` in a method called per batch:
                # the object's slot carries every call's graph into the next (a slot folding in
                # create_graph gradients, a differentiable optimizer's velocity, is TLK301's)
                self._effect(Effect("carry", outside, value, self.function.name, "[]="), computed)
        return True

    def _augmented(self, node: cst.AugAssign) -> None:
        key = target_key(node.target)
        if key is not None:
            for prefix in key_prefixes(key):
                self._read(prefix)
        if type(node.target) is cst.Subscript:
            for element in node.target.slice:
                if type(element.slice) is cst.Index:
                    self.evaluate(element.slice.value)
        value = self.evaluate(node.value)
        if key is None:
            return
        self._flow(mentions(node.value), key)
        self._data_flow(node.value, key)  # ``L += loss``: what L holds is computed from loss
        if isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp)):
            self._store(node, node.target, key, "+=", node.value, value)
        else:
            operator = self._code(node.operator).strip()
            decaying = operator in ("+=", "-=") and decaying_increment(node.value, key)
            if value.attached and (operator in ("*=", "/=") and type(node.target) is cst.Subscript or decaying):
                # ``w[k] *= torch.exp(-err)``: a slot of a state rescaled by a graph, carried
                # into the next iteration (as ``ema[k] = 0.9 * ema[k] + x`` is), not a total;
                # so is ``avg += (1 - d) * (kl - avg)``, a moving average written as a step
                self._binding(node, key, combine(self._lookup(key), value), mentions(node.value) | {key}, fed=True)
            elif value.attached:
                self._accumulation(node, node.target, key, operator, node.value, value)
            outside = self._outside_target(key)
            if outside is not None and (value.attached or value.params) and operator in ("+=", "-=", "*=", "/=") and not self._in_batch_loop():
                # (scaling state by a graph, ``self.alpha[i] *= torch.pow(b, loss)``, chains the
                # next call's graph onto this one: a carried state, not a running total)
                kind: EffectKind = "carry" if operator in ("*=", "/=") and value.attached else "accumulate"
                self._effect(Effect(kind, outside, value, self.function.name, DECAYING_SUM if decaying else operator))
        if value.attached:
            held = self._lookup(key)
            if type(node.target) is cst.Subscript and held.kind is Kind.CONTAINER:
                # ``stats["mse"] += batch_mse``: the dict holds an attached entry, still a dict
                literal = _literal_key(node.target, self.context.module_strings())
                entry = combine(held.entry(literal), value) if literal is not None else value
                self.env[key] = held.with_entry(literal, entry) if literal is not None else replace(held, state=State.ATTACHED)
            else:
                self.env[key] = combine(held, value)
        elif value.params and type(node.target) is cst.Name and not isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp)):
            # ``lbox += (1.0 - iou).mean()`` of what a caller passes: the sum holds what that gives
            held = self._lookup(key)
            if not held.attached:
                self.env[key] = replace(held, state=State.UNKNOWN if held.detached else held.state, params=held.params | value.params)
        self._binding(node, key, self.env.get(key, UNKNOWN), mentions(node.value) | {key})
        self._write(key)

    def _for(self, node: cst.For) -> None:
        iterable = self.evaluate(node.iter)
        over_loader = iterable.kind is Kind.LOADER or any(
            vocab.LOADER_NAME.search(part) for name in mentions(node.iter) for part in name.split(".")
        )
        loop = self._enter_loop(node, over_loader)
        wrapped = (
            [self.values.get(id(arg.value), UNKNOWN) for arg in node.iter.args]
            if type(node.iter) is cst.Call and last_identifier(node.iter.func) in ("zip", "enumerate", "reversed")
            else []
        )
        if iterable.kind is Kind.MODULE or _holds_modules(iterable) or any(part.kind is Kind.MODULE or _holds_modules(part) for part in wrapped) or _iterates_modules(node.iter) or (
            self.function.cls is not None and _indexes_own_modules(node)  # only a method has ``self.<modules>[i]``
        ):
            loop.in_module_method = loop.over_layers = True  # ``for layer in self.layers``: one forward, layer by layer
        loop.loop_targets = frozenset(mentions(node.target))
        element = _iterated_element(iterable)
        if type(node.iter) is cst.Call and type(node.iter.func) is cst.Attribute and node.iter.func.attr.value == "named_parameters" and not node.iter.args:
            # ``for name, p in net.named_parameters()``: each parameter a leaf that requires grad
            element = Value(State.DETACHED, Kind.CONTAINER, elements=(NUMBER, LEAF))
        if _holds_modules(iterable):
            owner = dotted(node.iter)
            if type(node.target) is cst.Name and owner is not None:
                self.module_aliases[node.target.value] = self.module_aliases.get(owner, owner)
                if element.cls is None and iterable.elements:
                    self.module_candidates[node.target.value] = tuple(part for part in iterable.elements if part.cls is not None)
        self._note_parameter_owners(node.iter, node.target)
        pairs = self._iterated_pairs(node.target, node.iter)
        if pairs is not None:
            # ``for i, (adv, tr) in enumerate(zip(advantages, trajectories))``: each target
            # from its own iterable (``adv`` holds nothing of ``trajectories``)
            for target, source, value in pairs:
                self._bind(target, source, value, node)
        else:
            if isinstance(node.iter, cst.Call) and last_identifier(node.iter.func) in ("zip", "enumerate"):
                element = UNKNOWN
            self._bind(node.target, self._loader_given(node.iter) or node.iter, element, node)
        if type(node.target) is cst.Name:
            # ``for agg in _aggregators.values()``: what is written into ``agg`` is written into
            # that container's entries (fairseq's ``agg[key].update(value, weight)``)
            values_of = node.iter.func.value if (
                type(node.iter) is cst.Call and type(node.iter.func) is cst.Attribute and node.iter.func.attr.value == "values" and not node.iter.args
            ) else None
            self._note_element_owner(node.target.value, dotted(values_of) if values_of is not None else None)
        self._loop_body(loop, _body(node.body))
        self._leave_loop(loop)
        if node.orelse is not None:
            self._block(_body(node.orelse.body))

    def _loader_given(self, iterable: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The loader a method iterates for its caller (``metric_logger.log_every(data_loader,
        print_freq)``, ``tqdm``-like wrappers on an object): the batches come from it, not from
        the object, whose state (its meters) is no source of what is trained on."""
        if type(iterable) is not cst.Call or type(iterable.func) is not cst.Attribute:
            return None
        loaders = [
            arg.value for arg in iterable.args
            if arg.keyword is None and (
                self.values.get(id(arg.value), UNKNOWN).kind is Kind.LOADER
                or any(vocab.LOADER_NAME.search(part) for name in mentions(arg.value) for part in name.split("."))
            )
        ]
        return loaders[0] if len(loaders) == 1 else None

    def _trains_in_loop(self) -> bool:
        """The loop being entered calls ``backward()`` or ``step()`` in its body (written there)."""
        loop = self.loop
        return loop is not None and any(
            type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("backward", "step")
            for node in subtree(loop.node)
        )

    def _iterated_pairs(
        self, target: cst.BaseExpression, iterable: cst.BaseExpression
    ) -> Optional[list[tuple[cst.BaseExpression, cst.BaseExpression, Value]]]:
        """(target, what it iterates, its value) for each name a ``for`` binds through ``zip``,
        ``enumerate`` and ``.items()``, nested; None when the target does not match them."""
        if not (type(target) is cst.Tuple or type(target) is cst.List) or type(iterable) is not cst.Call:
            return None
        if any(type(element) is cst.StarredElement for element in target.elements):
            return None
        targets = [element.value for element in target.elements]
        args = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        if len(args) != len(iterable.args):
            return None
        kind = (self.context.aliases.qualify(iterable.func) or "") if isinstance(iterable.func, cst.Name) else ""
        sources: list[tuple[cst.BaseExpression, Optional[cst.BaseExpression]]]
        if kind == "zip" and len(args) == len(targets):
            sources = list(zip(targets, args))
        elif kind == "enumerate" and len(targets) == 2 and args:
            sources = [(targets[0], None), (targets[1], args[0])]
        elif isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "items" and not args and len(targets) == 2:
            sources = [(targets[0], None), (targets[1], iterable)]
        else:
            return None
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression, Value]] = []
        for name, source in sources:
            if source is None:
                pairs.append((name, iterable.func, NUMBER))  # an index or a key
                continue
            nested = self._iterated_pairs(name, source)
            if nested is not None:
                pairs.extend(nested)
                continue
            held = self.values.get(id(source), UNKNOWN)
            # (the values of ``d.items()``, ``zip`` and ``enumerate`` of a parameter stay symbolic, as
            # ``for v in d.values()`` does: ``for k, g in enumerate(grads): self.hist[k].append(g)``)
            symbolic = bool(held.params) and (source is iterable or kind == "zip" or kind == "enumerate" and not self._trains_in_loop())
            # (``for i, batch in enumerate(train_data)`` with a backward in the body gives batches: data)
            value = LEAF if held.leaf and held.kind is Kind.CONTAINER else held.part() if held.attached or symbolic else UNKNOWN
            pairs.append((name, source, value))
        return pairs

    def _note_parameter_owners(self, iterable: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """``for ema_p, p in zip(ema.parameters(), model.parameters())``: an in-place update of
        ``ema_p`` updates ``ema``, which outlives the loop."""
        iterated = self._iterated_pairs(target, iterable)  # (``enumerate(zip(...))`` too)
        pairs = [(source, name) for name, source, _ in iterated] if iterated is not None else [(iterable, target)]
        for source, name in pairs:
            if (
                type(name) is cst.Name and type(source) is cst.Call and type(source.func) is cst.Attribute
                and source.func.attr.value in ("parameters", "buffers")
            ):
                owner = dotted(source.func.value)
                if owner is not None:
                    self.parameter_owners[name.value] = owner

    def _while(self, node: cst.While) -> None:
        loop = self._enter_loop(node, over_loader=False)
        self.evaluate(node.test)
        self._loop_body(loop, _body(node.body))
        self._leave_loop(loop)
        if node.orelse is not None:
            self._block(_body(node.orelse.body))

    def _loop_body(self, loop: Loop, body: Sequence[cst.CSTNode]) -> None:
        """Walk a loop body; walk it once more when a value it carries into the next iteration
        starts recording a graph in it (``x = layer(x)`` over layers given data): the second
        iteration sees the attached value. The first walk's events are dropped."""
        entry = dict(self.env)
        marks = self._event_marks()
        self._block(body)
        # (an attribute the function has not bound before the loop, ``self.hidden`` set in
        # ``__init__``, enters the loop with what the file shows of it)
        before = {
            key: entry[key] if key in entry else self._known_outside(key)
            for key, access in loop.first_access.items()
            if access == "read" and key in self.env and (key in entry or "." in key)
        }
        changed = {
            key: join(before[key], self.env[key])
            for key in before
            if self.env[key].records_graph and not before[key].records_graph
        }
        if not changed:
            return
        self._drop_events(marks)
        self.env = {**entry, **changed}
        self._block(body)

    def _event_marks(self) -> tuple[int, ...]:
        function = self.function
        return (
            len(function.accumulations), len(function.stores), len(function.backwards), len(function.bindings),
            len(function.grad_resets), len(function.double_backward_grads), len(function.summary.effects),
            len(self.context.facts.loops),
        )

    def _drop_events(self, marks: tuple[int, ...]) -> None:
        function = self.function
        lists: list[list[Any]] = [
            function.accumulations, function.stores, function.backwards, function.bindings,
            function.grad_resets, function.double_backward_grads, function.summary.effects,
            self.context.facts.loops,
        ]
        for events, mark in zip(lists, marks):
            del events[mark:]

    def _enter_loop(self, node: LoopNode, over_loader: bool) -> Loop:
        attached = frozenset(key for key, value in self.env.items() if value.attached)
        loop = Loop(node, self.loop, over_loader=over_loader, start=self.context.seq + 1, attached_on_entry=attached)
        loop.branch_depth = self.branch_depth
        loop.in_module_method = self.in_module_method
        self.loops.append(loop)
        return loop

    def _leave_loop(self, loop: Loop) -> None:
        loop.end = self.context.seq
        self.loops.pop()
        self.context.facts.loops.append(loop)
        self.own_loops.append(loop)

    def _with(self, node: cst.With) -> None:
        saved = self.no_grad
        for item in node.items:
            mode = self._grad_mode(item.item, statement=False)
            if mode == "off" and _switches_on_a_variable(item.item) and (_backwards_in(node.body) or self._trains_by_default(item.item)):
                mode = "on"  # ``set_grad_enabled(phase == "train")`` around a backward: it trains
            self.evaluate(item.item)
            if mode is not None:
                self.no_grad = mode == "off"
            if item.asname is not None and isinstance(item.asname.name, cst.BaseExpression):
                scaled = self._scaled_loss(item.item)
                for key in mentions(item.asname.name):
                    self.env[key] = UNKNOWN
                    self._write(key)
                    if scaled is not None:
                        # ``with amp.scale_loss(loss, opt) as scaled: scaled.backward()`` backwards loss
                        self.env[key] = self.values.get(id(scaled), UNKNOWN)
                        self._flow(mentions(scaled), key)
                        self._data_flow(scaled, key)
                        self._binding(node, key, self.env[key], mentions(scaled))
        self._block(_body(node.body))
        self.no_grad = saved

    def _narrowed_to_data(self, test: cst.BaseExpression) -> list[str]:
        """Names a test proves to be a numpy array or a Python number (``isinstance(x,
        np.ndarray)``, ``type(x) == float``): in its branch they hold no graph."""
        aliases = self.context.aliases
        tested: Optional[cst.BaseExpression] = None
        if type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.comparisons[0].operator) in (cst.Equal, cst.Is):
            left, right = test.left, test.comparisons[0].comparator
            if type(left) is cst.Call and type(left.func) is cst.Name and left.func.value == "type" and len(left.args) == 1 and _names_a_data_type(right, aliases):
                tested = left.args[0].value
        elif type(test) is cst.Call and type(test.func) is cst.Name and test.func.value == "isinstance" and len(test.args) == 2 and _names_a_data_type(test.args[1].value, aliases):
            tested = test.args[0].value
        key = dotted(tested) if tested is not None else None
        return [key] if key is not None else []

    def _scaled_loss(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The loss a context manager hands back scaled (apex's ``amp.scale_loss(loss, opt)``):
        its first argument, for a call named ``scale_loss``."""
        if type(node) is cst.Call and last_identifier(node.func) == "scale_loss" and node.args and node.args[0].keyword is None:
            return node.args[0].value
        return None

    def _grad_mode(self, node: cst.BaseExpression, *, statement: bool) -> Optional[str]:
        """"off" for ``torch.no_grad()`` and friends, "on" for ``torch.enable_grad()``."""
        if type(node) is not cst.Call:
            return None
        name = self.context.aliases.qualify(node.func)
        if name is None:
            return None
        if name in vocab.SET_GRAD_ENABLED:
            first = node.args[0].value if node.args else None
            if type(first) is cst.Name and first.value == "True":
                return "on"
            # A variable (``set_grad_enabled(is_train)``) may be the eval branch: stay silent.
            return "off"
        if statement:
            return None
        if name in vocab.NO_GRAD_CALLABLES:
            return "off"
        if name in vocab.ENABLE_GRAD_CALLABLES:
            return "on"
        if self._names_no_grad_wrapper(node.func):
            return "off"
        definition = self._resolve(node.func, node.args)
        if definition is not None:
            return self._context_manager_grad_mode(definition, node)
        return None

    def _context_manager_grad_mode(self, definition: cst.FunctionDef, call: cst.Call) -> Optional[str]:
        """A context manager of the file (``@contextmanager def _set_training_mode(self, training)``)
        whose body runs ``with torch.set_grad_enabled(training):`` around its ``yield``: the mode
        the call's argument sets (``False`` switches grad off), or what ``no_grad`` in it sets."""
        parameters = [p.name.value for p in (*definition.params.posonly_params, *definition.params.params)]
        offset = 1 if parameters[:1] == ["self"] and type(call.func) is cst.Attribute else 0
        for statement in iter_statements(_body(definition.body)):
            if type(statement) is not cst.With:
                continue
            for item in statement.items:
                inner = item.item
                if type(inner) is not cst.Call:
                    continue
                qualified = self.context.aliases.qualify(inner.func) or ""
                if qualified in vocab.NO_GRAD_CALLABLES:
                    return "off"
                if qualified in vocab.SET_GRAD_ENABLED and inner.args and isinstance(inner.args[0].value, cst.Name):
                    flag = inner.args[0].value.value
                    argument: Optional[cst.BaseExpression] = None
                    if flag in parameters:
                        index = parameters.index(flag) - offset
                        positional = [a.value for a in call.args if a.keyword is None]
                        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
                        argument = keywords.get(flag) or (positional[index] if 0 <= index < len(positional) else None)
                    if type(argument) is cst.Name and argument.value in ("True", "False"):
                        return "on" if argument.value == "True" else "off"
        return None

    def _argument_class(self, function: str, index: int) -> Optional[str]:
        """The class every call in the file passes at ``index`` (None if they differ)."""
        classes = self.context.argument_classes(function, index)
        return next(iter(classes)) if len(classes) == 1 else None

    def _narrowed_to_class(self, test: cst.BaseExpression) -> Optional[tuple[str, Value]]:
        """``(key, an object of C)`` for ``isinstance(key, C)`` with ``C`` a class the file (or
        the project) shows, when ``key`` is not known to be one of its subclasses already."""
        if type(test) is not cst.Call or type(test.func) is not cst.Name or test.func.value != "isinstance" or len(test.args) != 2:
            return None
        key, name = dotted(test.args[0].value), dotted(test.args[1].value)
        instance = self._instance_of(name)
        if key is None or instance is None or instance.cls is None:
            return None
        held = self._lookup(key)
        if held.cls is not None and any(info.name == instance.cls for info in self.context.class_chain(held.cls)):
            return None  # already one (a subclass of it, maybe)
        return key, replace(instance, state=held.state if held.state is not State.UNKNOWN else instance.state)

    def _instance_of(self, name: Optional[str]) -> Optional[Value]:
        """An object of the class ``name`` names (of the file, or the project's by name or key)."""
        if not name:
            return None
        if name in (_SOME_MODULE, "torch.nn.Module"):
            return Value(State.DETACHED, Kind.MODULE)
        if name == _SOME_LOSS:
            return Value(State.DETACHED, Kind.LOSS_FUNCTION)
        if name.startswith(_LIST_OF):
            element = self._instance_of(name[len(_LIST_OF):])
            return Value(State.DETACHED, Kind.CONTAINER, elements=(element,), open_tail=True) if element is not None else None
        info = self.context.classes.get(name)
        if info is not None:
            return Value(State.DETACHED, Kind.MODULE if info.is_module else Kind.INSTANCE, cls=name)
        imported = self.context.imported_class(name)
        if imported is not None:
            return Value(State.DETACHED, Kind.MODULE if imported.is_module else Kind.INSTANCE, cls=imported.key)
        return None

    def _switches_grad_off(self, decorator: cst.BaseExpression) -> bool:
        """``@torch.no_grad()``, ``@torch.inference_mode()``, or a wrapper of them the file does
        not define (``@smart_inference_mode()`` from the project's utilities)."""
        return self.context.aliases.qualify(decorator) in vocab.NO_GRAD_CALLABLES or self._names_no_grad_wrapper(decorator)

    def _names_no_grad_wrapper(self, func: cst.BaseExpression) -> bool:
        """A project's own no-grad wrapper, defined out of sight and known by its name only."""
        identifier = last_identifier(func) or ""
        return identifier not in self.context.functions and vocab.NO_GRAD_WRAPPER_NAME.search(identifier) is not None

    def walk_function(self, node: cst.FunctionDef, *, inherited_no_grad: bool) -> Function:
        done = self.context.walked.get(id(node))
        if done is not None:
            return done
        name = node.name.value
        cls = self.context.owner.get(id(node))
        # Called inside a no-grad block: ``f`` by a bare name, a method through ``self`` (the ast's
        # resolution) or through a receiver whose class the walk knows (the evidence's).
        callee_key = f"{cls}.{name}" if cls else name
        called_without_grad = callee_key in self.context.no_grad_callees or callee_key in self.context.evidence.called_without_grad
        # (``run_epoch(train=True)`` with grad, ``run_epoch(train=False)`` under no_grad: walked with
        # grad, its branch that does not train without)
        shared_with_no_grad = called_without_grad and callee_key in self.context.evidence.called_with_grad
        called_without_grad = called_without_grad and not shared_with_no_grad
        if name == "forward" and cls is not None and cls in self.context.classes and self.context.classes[cls].is_module:
            # a module's forward runs at every call of the module, not only where ``self.forward(...)``
            # is written (GAIL's discriminator calls it itself under no_grad to compute rewards)
            called_without_grad = False
        # Lightning runs ``validation_step`` without grad; a loop of the project that calls it
        # itself, with grad, does not (a hand-rolled trainer over a plain nn.Module)
        framework_no_grad = name in vocab.NO_GRAD_METHODS and not self._called_with_grad(f"{cls}.{name}" if cls else name)
        no_grad = inherited_no_grad or framework_no_grad or called_without_grad or any(
            self._switches_grad_off(d.decorator.func if type(d.decorator) is cst.Call else d.decorator)
            for d in node.decorators
        )
        if cls is not None and name in vocab.FRAMEWORK_NO_GRAD_METHODS:
            # Hugging Face's ``Pipeline.forward`` runs ``_forward`` under ``torch.inference_mode()``
            bases = {base.rsplit(".", 1)[-1] for info in self.context.class_chain(cls) for base in info.bases}
            no_grad = no_grad or any(base.endswith(vocab.FRAMEWORK_NO_GRAD_METHODS[name]) for base in bases)
        qualified_name = f"{cls}.{name}" if cls else name
        callers = self.context.callers_of(qualified_name)
        if callers and callers <= self.context.evidence.no_grad_functions and not (
            cls is not None and qualified_name in self.context.externals.called_with_grad_by_importers
        ):
            # every caller in the file runs without grad (and no module importing the class
            # calls it with grad: utils.py's no-grad validate beside train.py's training loop)
            no_grad = True
        per_batch_elsewhere = cls is not None and f"{cls}.{name}" in self.context.evidence.per_batch_by_importers
        forward_hook = id(node) in self.context.evidence.forward_hooks and not no_grad
        batch_callback = id(node) in self.context.evidence.batch_callbacks and not no_grad
        # A hook another module's base class runs once per batch (SpeechBrain's ``Brain.fit_batch``
        # calling ``self.compute_objectives``), overridden here.
        hook = self.context.imported_method(cls, name) if cls is not None and self.context.imports_from_project else None
        hook = hook if hook is not None and hook.per_batch_hook and not no_grad else None
        # (a runner's per-iteration hook, ``after_train_iter``: only a method, and only with grad)
        runner_hook = vocab.PER_BATCH_HOOKS.get(name, frozenset()) if cls is not None and not no_grad else frozenset()
        object_hook = vocab.PER_BATCH_OBJECT_HOOKS.get(name, {}) if cls is not None and not no_grad else {}
        object_hook = {param: held for param, held in object_hook.items() if param in _parameter_names(node)}
        per_batch = (
            name in vocab.PER_BATCH_METHODS or name in self.context.settings.per_batch_methods or per_batch_elsewhere or forward_hook or batch_callback
            or hook is not None or bool(runner_hook) or bool(object_hook)
        )
        self.context.in_progress.add(id(node))
        outer_top = self.context.top
        self.context.top = self.context.def_tops.get(id(node), outer_top)
        qualified = f"{cls}.{name}" if cls else name
        walker = _Walker(self.context, node, qualified, no_grad=no_grad, per_batch=per_batch, cls=cls)
        walker.shared_with_no_grad = shared_with_no_grad
        walker.function.summary.per_batch = per_batch_elsewhere
        # In the order of a signature: ``*args`` and ``**kwargs`` are parameters too (``parameters``
        # names them with their stars), so that ``tracker.add(mel=l1, kl=l2)`` summing every
        # keyword argument into ``self.totals`` is an effect on what the call passes.
        star_arg = node.params.star_arg if type(node.params.star_arg) is cst.Param else None
        params = [
            *node.params.posonly_params, *node.params.params, *([star_arg] if star_arg else []),
            *node.params.kwonly_params, *([node.params.star_kwarg] if node.params.star_kwarg else []),
        ]
        # what each parameter's attributes say of its class (one walk of the body, only if asked)
        reads: Optional[dict[str, set[str]]] = None

        def class_by_reads(key: str) -> Optional[str]:
            nonlocal reads
            if not self.context.classes:
                return None
            if reads is None:
                reads = self.context.body(node).attributes_read
            read = set(reads.get(key, set()))
            if name == "__init__" and cls is not None:
                # ``self.memory = buffer``: the class's methods' use of ``self.memory`` (``.add``,
                # ``.sample``) says what ``buffer`` is
                for attribute in _attributes_set_from(node, key):
                    for info in self.context.class_chain(cls):
                        for method in info.methods.values():
                            read |= self.context.body(method).attributes_read.get(f"self.{attribute}", set())
            return self.context.class_by_members(read)

        for index, param in enumerate(params):
            key = param.name.value
            walker.local_names.add(key)
            if param is star_arg or param is node.params.star_kwarg:
                walker.parameters.append(("*" if param is star_arg else "**") + key)
                walker.env[key] = parameter(index)
                continue
            walker.parameters.append(key)
            # ``self``; ``train(model, ...)`` where every call passes a ``Net`` (more precise than
            # an annotation naming its base, ``model: BaseVAE``, whose methods may be stubs); or
            # ``memory_bank: MemoryBankNCE`` (a class of the file or the project)
            instance = (
                self._instance_of(cls) if index == 0 and cls is not None and key == "self"
                else self._instance_of(self._argument_class(qualified, index)) or self._instance_of(_annotated_class(param))
                or self._instance_of(_default_class(param))
                or self._instance_of(class_by_reads(key))
            )
            factory = dotted(param.default) if param.default is not None and type(param.default) in (cst.Name, cst.Attribute) else None
            if instance is None and factory is not None and factory.rsplit(".", 1)[-1][:1].isupper():
                # ``actor_critic=core.MLPActorCritic``: calling the parameter builds one
                walker.factories[key] = factory
            if instance is not None and instance.cls in self.context.classes and self.context.classes[instance.cls].holds_arguments and not (
                index == 0 and key == "self"
            ):
                # a record handed in (``outputs: SequenceClassifierOutput``): its fields are whatever
                # the caller put in them, so what is read from it depends on the argument
                walker.env[key] = replace(instance, state=State.UNKNOWN, params=frozenset({index}))
            elif instance is not None:
                walker.env[key] = instance
            elif walker._is_evident_module(key):
                walker.env[key] = Value(State.DETACHED, Kind.MODULE)
            elif walker._is_backwarded(key):
                walker.env[key] = Value(State.ATTACHED, params=frozenset({index}))
            elif (given := self._hook_argument(cls, hook, index)) is not None:
                walker.env[key] = replace(given, params=frozenset({index}))
            else:
                walker.env[key] = parameter(index)
        for param in params:
            if param.name.value in runner_hook:
                # what the runner hands the hook: the iteration's losses, attached
                walker.env[param.name.value] = Value(State.ATTACHED, Kind.CONTAINER)
            if param.name.value in object_hook:
                # the object running the hook: the attributes holding the iteration's graph
                held = tuple(sorted(object_hook[param.name.value]))
                walker.env[param.name.value] = Value(
                    State.DETACHED, Kind.INSTANCE, keys=held, elements=tuple(Value(State.ATTACHED, Kind.TENSOR) for _ in held)
                )
        top = self.context.def_tops.get(id(node))
        if cls is None and type(top) is cst.ClassDef and "self" not in walker.env and top.name.value in self.context.classes:
            # a closure defined in a method (``def update_moving_average(ma, cur):`` inside
            # ``EMA(self)``) reads the method's ``self``: an object of that class
            enclosing = self._instance_of(top.name.value)
            if enclosing is not None:
                walker.env["self"] = enclosing
        positional = [p for p in (*node.params.posonly_params, *node.params.params)]
        if forward_hook and positional:
            # ``hook(module, inputs, output)``: run by a module's forward pass, with its output
            walker.env[positional[-1].name.value] = Value(State.ATTACHED, Kind.TENSOR)
        # (a module or an object of the project's classes handed in, ``train_step(model,
        # criterion, ...)``: built once by the caller, so what it keeps outlives each call; not
        # one that is optional, ``forward(x, cache=None)``, given by some calls only, per call)
        handed_in = {
            param.name.value for index, param in enumerate(params)
            if (index > 0 or param.name.value != "self") and param.default is None
            if (given := walker.env.get(param.name.value)) is not None and given.kind in (Kind.MODULE, Kind.INSTANCE) and given.cls
            and not (given.cls in self.context.classes and self.context.classes[given.cls].holds_arguments)
        }
        self.context.active.append(walker)
        try:
            function = walker.run(_body(node.body))
        finally:
            self.context.active.pop()
        if walker.per_batch_loop is not None:
            walker.per_batch_loop.local_names = frozenset(walker.local_names - handed_in)
        self.context.top = outer_top
        self.context.in_progress.discard(id(node))
        self.context.walked[id(node)] = function
        return function

    def _hook_argument(self, cls: Optional[str], hook: Optional[Summary], index: int) -> Optional[Value]:
        """What the base class passes at ``index`` to a hook it runs per batch, when that is the
        result of another of the object's methods (``predictions = self.compute_forward(batch)``):
        that method of this class, as walked here, when it returns a graph."""
        if cls is None or hook is None or index >= len(hook.hook_sources) or not hook.hook_sources[index]:
            return None
        source = self.context.method(cls, hook.hook_sources[index])
        if source is None or id(source) in self.context.in_progress:
            return None
        returned = self.walk_function(source, inherited_no_grad=False).summary.returns
        return returned if returned.attached else None

    def _called_with_grad(self, qualified: str) -> bool:
        """Some function of the file calls ``qualified`` with grad enabled (outside any no-grad
        block, from a caller that has grad), or a module importing the file does."""
        if qualified in self.context.externals.called_with_grad_by_importers:
            return True
        evidence = self.context.evidence
        callers = self.context.callers_of(qualified)
        return bool(callers - evidence.no_grad_functions) and qualified not in evidence.called_without_grad

    def _record_called_arguments(self, key: str, call: cst.Call, definition: cst.FunctionDef) -> None:
        """``loss, log = criterion(net, batch)`` where ``criterion`` calls its first parameter:
        if ``loss`` reaches a backward, ``net`` computed its graph (a module, whatever its name)."""
        params = [param.name.value for param in (*definition.params.posonly_params, *definition.params.params)]
        if params and params[0] in ("self", "cls") and (type(call.func) is cst.Attribute or definition.name.value in ("__call__", "forward")):
            params = params[1:]  # bound: ``obj.method(net, x)``, or ``loss_fn(net, x)`` running ``__call__``
        called = self.context.names_called(definition)
        for position, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
            argument = dotted(arg.value)
            if argument is not None and position < len(params) and params[position] in called:
                self.context.observations.called_arguments.append((self.function, key, argument))

    def _record_call_result(self, key: str, value_node: cst.BaseExpression, position: Optional[int] = None) -> None:
        """``key = callee(...)`` (``position``: ``key`` is that position of the result): for the
        evidence pass (is the callee a module? which part of its result is backwarded?)."""
        call = _strip_access(value_node)
        while type(call) is cst.Call and type(call.func) is cst.Attribute and type(call.func.value) is cst.Call:
            call = call.func.value  # ``net(x).view(...)``, ``f(x).sum()``
        if type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value in _TENSOR_METHODS:
            inner = _strip_access(call.func.value)
            if type(inner) in (cst.BinaryOperation, cst.UnaryOperation):
                call = inner  # ``-(policy.log_probs(obs, a) * adv).mean()``
        if type(call) is cst.UnaryOperation:
            self._record_call_result(key, call.expression)
            return
        if type(call) is cst.BinaryOperation:
            # each operand computed by a call flows into ``key``
            self._record_call_result(key, call.left)
            self._record_call_result(key, call.right)
            return
        if type(call) is not cst.Call:
            return
        callee = dotted(call.func)
        if callee is None:
            return
        definition = self._resolve(call.func, call.args)
        name = self.context.aliases.qualify(call.func) or callee
        if definition is not None:
            cls = self.context.owner.get(id(definition))
            qualified = f"{cls}.{definition.name.value}" if cls else definition.name.value
            self.context.observations.call_results.append((self.function, key, callee, True, qualified, False))
            if position is not None and _strip_access(value_node) is call:
                self.context.observations.unpacked_results[(id(self.function), key)] = position
            self._record_called_arguments(key, call, definition)
            return
        owner = self.values.get(id(call.func.value), UNKNOWN) if type(call.func) is cst.Attribute else UNKNOWN
        imported = self._imported_callee(call.func, owner)
        if isinstance(imported, Summary):  # recorded under its project-wide key (``meta.py:meta_loss``)
            self.context.observations.call_results.append((self.function, key, callee, True, imported.key, False))
        if imported is not None:
            return
        head = callee.split(".", 1)[0]
        receiver = self.env.get(callee.rsplit(".", 1)[0]) if "." in callee else None
        if name.startswith(vocab.GRAPH_OPS_PREFIXES) and call.args and call.args[0].keyword is None and not call.args[0].star:
            # ``features = F.normalize(encoder(x))``: the callee inside a torch function
            self._record_call_result(key, call.args[0].value)
            return
        if name.startswith(("torch.", "numpy.", "np.", "math.")) or callee in vocab.DETACHING_CALLABLES:
            return
        if callee in vocab.PASSING_BUILTINS or head in ("super",):
            return
        if receiver is not None and receiver.kind not in (Kind.UNKNOWN, Kind.INSTANCE, Kind.MODULE):
            return  # a method of a tensor, a number or an optimizer
        attribute = call.func.attr.value if type(call.func) is cst.Attribute else ""
        if attribute in vocab.DETACHING_METHODS or attribute in vocab.MODULE_SELF_METHODS or attribute in _TENSOR_METHODS:
            return
        if "." in callee and callee.rsplit(".", 1)[0] in self._data_names():
            return
        given_a_graph = any(self.values.get(id(arg.value), UNKNOWN).attached for arg in call.args)
        self.context.observations.call_results.append((self.function, key, callee, False, callee, given_a_graph))

    def _data_names(self) -> set[str]:
        """Names bound to values (not callables) so far: method calls on them are not modules."""
        return {key for key, value in self.env.items() if value.kind in (Kind.TENSOR, Kind.NUMBER, Kind.TUPLE, Kind.CONTAINER) or value.params}

    # ----------------------------------------------------------------- expressions
    def evaluate(self, node: cst.BaseExpression) -> Value:
        value = self._evaluate(node)
        self.values[id(node)] = value
        return value

    def _evaluate(self, node: cst.BaseExpression) -> Value:
        if type(node) is cst.Name:
            if node.value in ("True", "False"):
                return NUMBER
            if node.value == "None":
                return NONE
            self._read(node.value)
            return self._lookup(node.value)
        if type(node) is cst.Attribute:
            return self._attribute(node)
        if type(node) is cst.Call:
            return self._call(node)
        if type(node) is cst.Subscript:
            container = self.evaluate(node.value)
            index: Optional[int] = None
            for element in node.slice:
                if type(element.slice) is cst.Index:
                    self.evaluate(element.slice.value)
                    if type(element.slice.value) is cst.Integer:
                        index = int(element.slice.value.value)
                    elif type(element.slice.value) is cst.UnaryOperation and type(element.slice.value.expression) is cst.Integer:
                        index = -int(element.slice.value.expression.value)
                elif type(element.slice) is cst.Slice:
                    for part in (element.slice.lower, element.slice.upper, element.slice.step):
                        if part is not None:
                            self.evaluate(part)
            if container.kind is Kind.MODULE:
                # ``self.blocks[:n]`` is a container of modules, ``self.layers[i]`` one of them
                sliced = any(type(element.slice) is cst.Slice for element in node.slice)
                if sliced:
                    return container
                if container.elements:
                    return join(*container.elements)
                return Value(State.DETACHED, Kind.MODULE)
            if self.no_grad:
                return DETACHED
            literal = _literal_key(node, self.context.module_strings())
            if container.keys is not None:
                return container.entry(literal) if literal is not None else any_entry(container)
            if container.elements is not None and index is not None and len(node.slice) == 1:
                return container.element(index)
            start = _constant_start(node)
            if container.elements is not None and start is not None:
                return container.sliced(start)  # ``out[1:]`` of ``[loss] + mems``: the memories
            if container.kind is Kind.TENSOR:
                # (a slice of a leaf that requires grad records ``SliceBackward``: ``delta[:n]``)
                return ATTACHED if container.leaf else container
            if container.kind is Kind.NUMBER:
                return NUMBER  # ``x.shape[0]``
            if container.kind is Kind.CONTAINER and container.elements and all(
                element.kind in (Kind.INSTANCE, Kind.MODULE) and element.cls is not None for element in container.elements
            ):
                # ``metric_logger.meters["pix_err"]`` of a ``defaultdict(SmoothedValue)``: one of
                # its objects, whose methods the call on it runs (or one of a list of modules,
                # ``hidden_activations[i]``)
                return join(*container.elements)
            if _holds_no_graph(container):
                return DETACHED  # nothing in a value without graph carries one (``batches[i]["x"]`` of randn)
            if literal is not None:
                return container.entry(literal)  # (of a parameter: that entry of what the caller gives)
            return container.part()
        if type(node) is cst.BinaryOperation:
            left, right = self.evaluate(node.left), self.evaluate(node.right)
            if self.no_grad:
                return combine(left, right).with_state(State.DETACHED)
            if type(node.operator) is cst.Add and left.kind is Kind.CONTAINER and left.elements is not None and (
                right.kind in (Kind.CONTAINER, Kind.UNKNOWN)
            ):
                return _concatenated(left, right)  # list concatenation: left's elements keep their places
            if type(node.operator) is cst.Add and left.kind is Kind.CONTAINER and right.kind is Kind.CONTAINER:
                return join(left, right)
            sequences = [side for side in (left, right) if side.kind in (Kind.CONTAINER, Kind.TUPLE)]
            if type(node.operator) is cst.Multiply and sequences:
                # ``[stop] * r``: a list repeating the elements, not arithmetic on them
                return Value(sequences[0].state, Kind.CONTAINER, sequences[0].double_backward, params=sequences[0].params)
            if type(node.operator) is cst.Modulo and _string_expression(node.left):
                return NUMBER  # ``"%f, %f" % (train_loss, test_loss)``: a string (str() of each tensor)
            if (left.leaf or right.leaf) and not (
                # (``cur_param - saved_param`` over ``model.named_parameters()``: a penalty on the
                # weights, computed once per call, not a forward of each iteration around it)
                self.loop is not None and self.loop.over_layers and mentions(node) & self.loop.loop_targets
            ):
                self._mark_loops(forward=True)  # ``x @ self.W``: a forward computed from parameters
            for number, (other, other_node) in ((left, (right, node.right)), (right, (left, node.left))):
                if number == NUMBER and other.state is State.UNKNOWN and other.kind is Kind.UNKNOWN and type(other_node) is cst.Attribute and dotted(other_node) is not None:
                    return NUMBER  # ``loss.item() / params.train_window``: a number scaled by a setting
            return combine(left, right)
        if type(node) is cst.UnaryOperation:
            operand = self.evaluate(node.expression)
            if type(node.operator) is cst.Not:
                return NUMBER
            if self.no_grad:
                return operand.with_state(State.DETACHED)
            return operand
        if type(node) is cst.BooleanOperation:
            return join(self.evaluate(node.left), self.evaluate(node.right))
        if type(node) is cst.Comparison:
            self.evaluate(node.left)
            for comparison in node.comparisons:
                self.evaluate(comparison.comparator)
            return DETACHED  # comparisons give bools or bool tensors, which carry no graph
        if type(node) is cst.IfExp:
            self.evaluate(node.test)
            body, orelse = self.evaluate(node.body), self.evaluate(node.orelse)
            tested = self._tensor_test(node.test)
            if tested is not None and dotted(node.orelse) == tested:
                orelse = DETACHED  # ``v.detach() if torch.is_tensor(v) else v``: no tensor, no graph
            return join(body, orelse)
        if type(node) is cst.Tuple:
            return tuple_of([self.evaluate(element.value) for element in node.elements])
        if type(node) is cst.List or type(node) is cst.Set:
            elements = [self.evaluate(element.value) for element in node.elements]
            inner = tuple_of(elements)
            # (``[users_emb, items_emb]`` of parameters: what ``torch.cat`` makes of it is attached)
            leaves = inner.state is not State.ATTACHED and any(element.leaf for element in elements)
            return Value(inner.state, Kind.CONTAINER, inner.double_backward, inner.elements, params=inner.params, leaf=leaves)
        if type(node) is cst.Dict:
            parts: list[Value] = []
            entries: Optional[dict[str, Value]] = {}
            for entry in node.elements:
                if type(entry) is cst.DictElement:
                    self.evaluate(entry.key)
                entry_value = self.evaluate(entry.value)
                parts.append(entry_value)
                if entries is None:
                    continue
                literal = _string_key(entry.key, self.context.module_strings()) if type(entry) is cst.DictElement else None
                if literal is not None:
                    entries[literal] = entry_value
                elif type(entry) is cst.StarredDictElement and entry_value.keys is not None:
                    entries.update(zip(entry_value.keys, entry_value.elements or ()))  # ``{**d, "k": v}``
                else:
                    entries = None  # a computed key: one value for the whole dict
            if entries is not None and entries:
                return keyed(entries)
            inner = tuple_of(parts)
            return Value(inner.state, Kind.CONTAINER, inner.double_backward, params=inner.params)
        if type(node) is cst.ListComp or type(node) is cst.SetComp or type(node) is cst.GeneratorExp or type(node) is cst.DictComp:
            produced = self._comprehension(node)
            if produced.kind in (Kind.INSTANCE, Kind.MODULE) and produced.cls is not None and type(node) is not cst.DictComp:
                # ``[ClipPrompt(e) for e in embeds]``: any number of objects of that class (or
                # modules, ``[Dice(units) for units in hidden_units]`` handed to a block)
                return Value(produced.state, Kind.CONTAINER, produced.double_backward, elements=(produced,), params=produced.params, open_tail=True)
            return Value(produced.state, Kind.CONTAINER, produced.double_backward, params=produced.params)
        if type(node) is cst.Integer or type(node) is cst.Float or type(node) is cst.Imaginary or type(node) is cst.SimpleString or type(node) is cst.ConcatenatedString:
            return NUMBER
        if type(node) is cst.Ellipsis:
            return DETACHED
        if type(node) is cst.FormattedString:
            for content in node.parts:
                if type(content) is cst.FormattedStringExpression:
                    self.evaluate(content.expression)
                    self._number_read(content.expression)
            return NUMBER
        if type(node) is cst.Lambda:
            return DETACHED
        if type(node) is cst.NamedExpr:
            value = self.evaluate(node.value)
            self._bind(node.target, node.value, value, node)
            return value
        if type(node) is cst.Await or type(node) is cst.StarredElement:
            return self.evaluate(node.expression if isinstance(node, cst.Await) else node.value)
        if type(node) is cst.Yield:
            if isinstance(node.value, cst.BaseExpression):
                self.returns.append(self.evaluate(node.value))
                self.function.consumed.update(mentions(node.value))
            return UNKNOWN
        return UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        key = dotted(node)
        if key is None:
            base = self.evaluate(node.value)
        else:
            for prefix in key_prefixes(key):
                self._read(prefix)
            optimized = bool(self.context.evidence.optimized)
            if key in self.env:
                return self._optimized_leaf(key, self.env[key]) if optimized else self.env[key]
            owner = key.rsplit(".", 1)[0]
            base = self._through_classes(owner)
            if base.kind is Kind.INSTANCE and base.keys is not None:
                if base.cls is None and node.attr.value not in base.keys:
                    return UNKNOWN  # (an attribute a framework's object holds and the table does not name)
                return base.entry(node.attr.value)  # a field of a record (``state.forces``)
            if base.kind in (Kind.INSTANCE, Kind.MODULE) and base.cls is not None:
                attribute = self._class_attribute(base.cls, node.attr.value)
                if owner == "self" and (attribute is None or attribute.kind is Kind.NONE or attribute.detached and attribute.kind not in _OBJECT_KINDS):
                    attribute = self._calling_walk_binding(key) or attribute
                if attribute is not None:
                    found = self._evident_module_or(key, attribute)
                    return self._optimized_leaf(key, found) if optimized else found
            if key.startswith("self.") or self._is_evident_module(key):
                looked = self._evident_module_or(key, self._lookup(key))
                if looked is not UNKNOWN:
                    return looked
        if key is None and base.kind is Kind.INSTANCE and base.keys is not None:
            return base.entry(node.attr.value)  # ``self(batch).logits`` of a record
        if base.kind is Kind.TUPLE and base.elements is not None and len(base.elements) == 2 and node.attr.value in _VALUES_INDICES_FIELDS:
            # ``top = logits.topk(k)``: ``top.indices`` holds integer positions, no graph
            return base.element(_VALUES_INDICES_FIELDS[node.attr.value])
        if node.attr.value == "grad" and any(call.create_graph is not None and call.kind == "backward" for call in self.function.backwards):
            # after ``loss.backward(create_graph=True)`` every ``.grad`` holds a graph (of the
            # gradient computation, and through it of the loss)
            return Value(State.ATTACHED, Kind.TENSOR, double_backward=True)
        if node.attr.value in vocab.DETACHING_ATTRIBUTES:
            return NUMBER if node.attr.value in ("shape", "ndim", "dtype", "device", "requires_grad", "is_leaf") else DETACHED_TENSOR
        if base.kind is Kind.MODULE:
            if node.attr.value in _PARAMETER_ATTRIBUTES and not self.no_grad:
                return LEAF  # ``self.embedding.weight``: a parameter, what is computed from it is attached
            return UNKNOWN  # a submodule or a config attribute
        if base.detached and base.kind not in (Kind.INSTANCE, Kind.OPTIMIZER, Kind.LOADER):
            return DETACHED  # a field of an output computed without grad
        if base.attached:
            return base.part()
        return Value(State.UNKNOWN, params=base.params, via_entries=base.via_entries) if base.params else UNKNOWN

    def _through_classes(self, key: str, depth: int = 0) -> Value:
        """The value of a dotted name, and where the environment knows nothing of it, what the
        class of its owner keeps there: ``self.agent.actor`` is the ``actor`` an ``Agent`` sets."""
        value = self._lookup(key)
        if value is not UNKNOWN or key.count(".") < 2 or depth > 4:
            return value
        owner, _, attribute = key.rpartition(".")
        base = self._through_classes(owner, depth + 1)
        if base.kind in (Kind.INSTANCE, Kind.MODULE) and base.cls is not None and base.keys is None:
            found = self._class_attribute(base.cls, attribute)
            if found is not None:
                return found
        return value

    def _evident_module_or(self, key: str, value: Value) -> Value:
        """``value``, or a module when nothing is known of it but the evidence says it is one
        (``self.net = backbone`` in ``__init__``, then ``self.net.parameters()``)."""
        if (value.kind is Kind.UNKNOWN and value.state is State.UNKNOWN or value.kind is Kind.NONE) and self._is_evident_module(key):
            return Value(State.DETACHED, Kind.MODULE)
        return value

    def _comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]) -> Value:
        self.in_comprehension += 1
        try:
            return self._comprehension_value(node)
        finally:
            self.in_comprehension -= 1

    def _comprehension_value(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]) -> Value:
        saved: dict[str, Optional[Value]] = {}
        clause: Optional[cst.CompFor] = node.for_in
        loop: Optional[Loop] = None
        while clause is not None:
            iterable = self.evaluate(clause.iter)
            element = node.value if isinstance(node, cst.DictComp) else node.elt
            if (
                loop is None and clause.inner_for_in is None and type(element) is cst.Call
                and self._resolve(element.func, element.args) is not None
            ):
                # ``[learner.step(b) for b in batches]``: a function of the file runs once per
                # element; what it keeps on its object is kept across those iterations as in a loop
                loop = self._enter_loop(node, over_loader=iterable.kind is Kind.LOADER)
                loop.loop_targets = frozenset(mentions(clause.target))
            for key in mentions(clause.target):
                saved.setdefault(key, self.env.get(key))
                self.env[key] = _iterated_element(iterable) if type(clause.target) is cst.Name else (
                    iterable.part() if iterable.attached or iterable.params else UNKNOWN
                )
                # (``[autograd.grad(loss, ...) for loss in losses]`` differentiates ``losses``)
                self._flow(mentions(clause.iter), key)
                self._data_flow(clause.iter, key)
            for condition in clause.ifs:
                self.evaluate(condition.test)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.evaluate(node.key)
            value = self.evaluate(node.value)
        else:
            value = self.evaluate(node.elt)
        if loop is not None:
            self._leave_loop(loop)
        for key, previous in saved.items():
            if previous is None:
                self.env.pop(key, None)
            else:
                self.env[key] = previous
        return value

    def _number_read(self, node: cst.BaseExpression) -> None:
        for key in data_mentions(node):
            self.context.observations.number_reads.add((id(self.function), key))

    # ----------------------------------------------------------------- calls
    def _resolve(self, func: cst.BaseExpression, args: Sequence[cst.Arg] = ()) -> Optional[cst.FunctionDef]:
        """The function or method of this file a callee names, through classes and their bases
        (``args``, the call's arguments, tell a method named like a module's from it)."""
        if type(func) is cst.Name:
            if func.value in self.context.classes:
                return self.context.method(func.value, "__init__")
            definitions = self.context.functions.get(func.value)
            if definitions:
                # A bare name never names a method (``update(...)`` inside ``Ema.update`` calls
                # the module's function of that name).
                plain = [definition for definition in definitions if id(definition) not in self.context.owner]
                if plain:
                    return plain[-1]
                if func.value in self.env or func.value in self.parameters:
                    return None  # ``act = hidden_activation if ... else ...; act()``: a local, not ``Agent.act``
                if self.context.aliases.binds(func.value):
                    return None  # ``EMA(0.995)`` of ``from .helpers import EMA`` beside a method ``EMA``: the import
                return definitions[-1]
            instance = self._instance_call(func)
            if instance is None and func.value in self.parameters and self._lookup(func.value).kind is Kind.UNKNOWN:
                return self._only_callable_taking(args)  # ``dino_loss(student_out, teacher_out)``, handed in
            return instance
        if type(func) is not cst.Attribute:
            return None
        default = self._default_callable(func)
        if default is not None:
            return self._resolve(default, args)
        if _is_super(func.value):
            # ``super().generate(...)``: the method of a base class the file defines, if any
            # (one the project defines is ``_imported_callee``'s).
            for info in self.context.class_chain(self.function.cls):
                if info.name != self.function.cls and func.attr.value in info.methods:
                    return info.methods[func.attr.value]
            return None
        instance = self._instance_call(func)
        if instance is not None:
            return instance
        method = func.attr.value
        owner = self.values.get(id(func.value))
        if owner is None:
            key = dotted(func.value)
            owner = self._lookup(key) if key is not None else UNKNOWN
        if owner.cls is not None and CLASS_UNION in owner.cls:
            return self._method_of_union(owner.cls, method)
        if owner.cls is not None:
            found = self.context.method(owner.cls, method)
            if found is None and dotted(func.value) == "self" and not method.startswith("__"):
                # ``self.observe(*args)`` in a base class that leaves ``observe`` to its
                # subclasses (mammoth's ``ContinualModel.meta_observe``): a subclass's, as for a stub
                overrides = [override for override in self.context.overrides(owner.cls, method) if not _is_stub(override)]
                if overrides:
                    return overrides[0]
            if found is None and dotted(func.value) == "self" and self._only_own_methods(owner.cls) and self._lookup(f"self.{method}").kind is Kind.UNKNOWN and self._injected(func):
                # ``self.loss_fn(self.model, sample)`` with ``self.loss_fn = loss_fn`` in ``__init__``
                return self._only_callable_taking(args)
            if found is not None and dotted(func.value) == "self" and _is_stub(found):
                # ``self.train_step(batch)`` in a base class whose own is abstract: what the
                # subclass of the file that implements it does (one implementation only)
                # (several: ``self.error(out, target)`` of a metric base whose subclasses each
                # compute a loss; the first stands for them, as for a list of metric objects)
                overrides = [override for override in self.context.overrides(owner.cls, method) if not _is_stub(override)]
                return overrides[0] if overrides else found
            return found
        if owner.kind in (Kind.UNKNOWN, Kind.MODULE) and (dotted(func.value) is not None or _element_owner(func.value) is not None):
            # An object whose class the file does not show: a method defined by exactly one class
            # of the file, with effects (``meter.update``, ``self.meters[k].update``), is that class's.
            candidates = self.context.methods_named(method)
            # (an abstract base's stub beside one implementation: ``Callback.on_train_batch_end``)
            implemented = [candidate for candidate in candidates if not _is_stub(candidate)]
            if method.startswith("__"):
                return None
            node_args = [arg for arg in args if arg.keyword is None and not arg.star]
            if method in _COMMON_METHODS:
                # ``model.train()`` is a module's; ``algorithm.train(features, clicks)`` can only be
                # a method of the file that takes those arguments
                implemented = [c for c in implemented if _takes_only_given_arguments(c, node_args)] if len(node_args) >= 2 else []
            if len(node_args) == len(args):
                # (only positional arguments: ``scaler.update()`` cannot be ``AverageMeter.update(val, n=1)``)
                implemented = [c for c in implemented if _takes_only_given_arguments(c, node_args)]
            if len(implemented) == 1:
                return implemented[0]
            # Several classes implement it (``metric.process(state)`` over a list of metrics): the
            # call may run any of them. When only one keeps what it is given across calls, the
            # others add no effect, so that one stands for them all.
            keeping = [candidate for candidate in implemented if self._keeps_arguments(candidate)]
            if len(keeping) == 1:
                return keeping[0]
            if keeping and self._instances_of_the_file(func.value):
                # every one that keeps keeps it (``for metric in [PSNR(), MAE()]: metric.update(out, y)``):
                # the first stands for them
                return keeping[0]
            # (a callback protocol, ``for cb in callbacks: cb.on_step_end(state)``: when one
            # implementation alone keeps something that may hold a graph, it stands for them)
            keeping_graphs = [candidate for candidate in implemented if self._keeps_graphs(candidate)]
            if len(keeping_graphs) == 1 and len(implemented) > 1:
                return keeping_graphs[0]
        return None

    def _instances_of_the_file(self, receiver: cst.BaseExpression) -> bool:
        """``receiver`` is an object of a class of the file: an instance, or the element of a
        container of such instances that an enclosing loop iterates."""
        if self.values.get(id(receiver), UNKNOWN).kind is Kind.INSTANCE:
            return True
        name = dotted(receiver)
        iterated = self._loop_iterable(name) if name is not None else None
        container = self._lookup(iterated) if iterated is not None else UNKNOWN
        return bool(container.elements) and all(
            element.kind is Kind.INSTANCE and element.cls in self.context.classes for element in container.elements or ()
        )

    def _dispatched(self, node: cst.Call) -> Optional[Value]:
        """``loss_map[loss](outputs, targets)`` with ``loss_map = {"labels": self.loss_labels, ...}``
        bound in this function (DETR's ``SetCriterion.get_loss``): any of those callables, called
        so; what they return, joined. None for any other subscript called."""
        func = node.func
        assert type(func) is cst.Subscript
        if type(func.value) is not cst.Name or type(self.function.node) is not cst.FunctionDef:
            return None
        name = func.value.value
        literals = [
            statement.value for statement in iter_statements(self.function.node.body.body)
            if type(statement) is cst.Assign and len(statement.targets) == 1
            and type(statement.targets[0].target) is cst.Name and statement.targets[0].target.value == name
        ]
        if len(literals) != 1 or type(literals[0]) is not cst.Dict:
            return None
        callables = [element.value for element in literals[0].elements if type(element) is cst.DictElement]
        if not callables or len(callables) > 8 or len(callables) != len(literals[0].elements) or not all(
            type(target) is cst.Name or type(target) is cst.Attribute and dotted(target) is not None for target in callables
        ):
            return None
        for element in func.slice:
            if type(element.slice) is cst.Index:
                self.evaluate(element.slice.value)
        results: list[Value] = []
        for target in callables:
            made = self._stand_in(target, node.args, node)
            if made is None:
                return None
            results.append(self._call(made))
        return join(*results)

    def _stand_in(self, func: cst.BaseExpression, args: Sequence[cst.Arg], node: cst.Call) -> Optional[cst.Call]:
        """A made-up call of ``func`` with ``args``, walked in place of ``node`` and reported at it
        (``FileFacts.stand_ins``); None when libcst refuses those arguments in that order."""
        try:
            made = cst.Call(func=func, args=args)
        except cst.CSTValidationError:
            return None
        self.context.facts.stand_ins[id(made)] = node
        self.context.made_calls.append(made)  # (kept alive: ids name the nodes while the walk runs)
        return made

    def _keeps_graphs(self, definition: cst.FunctionDef) -> bool:
        """A function of the file whose effects keep a value that holds, or may hold, a graph."""
        if id(definition) in self.context.in_progress:
            return False
        effects = self.walk_function(definition, inherited_no_grad=False).summary.effects
        return any(effect.kind != "reset" and (effect.value.attached or effect.value.params) for effect in effects)

    def _method_of_union(self, cls: str, name: str) -> Optional[cst.FunctionDef]:
        """The method ``name`` of an object of one of several classes of the file (what a factory
        returns): the one implementation that keeps something across calls stands for them all
        (the others add no effect); else the first."""
        found = [method for part in classes_of(cls) if (method := self.context.method(part, name)) is not None and not _is_stub(method)]
        keeping = [
            method for method in found
            if id(method) not in self.context.in_progress and _keeps_something(self.walk_function(method, inherited_no_grad=False).summary)
        ]
        return keeping[0] if keeping else (found[0] if found else None)

    def _keeps_arguments(self, definition: cst.FunctionDef) -> bool:
        """A function of the file that keeps what it is given (``_keeps_its_arguments``)."""
        if id(definition) in self.context.in_progress:
            return False
        return _keeps_its_arguments(self.walk_function(definition, inherited_no_grad=False).summary)

    def _call(self, node: cst.Call) -> Value:
        partial = self.partials.get(node.func.value) if type(node.func) is cst.Name else None
        if partial is not None and partial.args and not partial.args[0].star:
            # ``compute_losses()`` for ``compute_losses = functools.partial(f, model, x)``: the call
            # of ``f(model, x)``, walked as one (and reported at this call)
            given = [*partial.args[1:], *node.args]
            # (positional ones first, as Python binds them: the partial's, then the call's)
            ordered = [arg for arg in given if arg.keyword is None and arg.star != "**"] + [
                arg for arg in given if arg.keyword is not None or arg.star == "**"
            ]
            made = self._stand_in(partial.args[0].value, ordered, node)
            if made is not None:
                node = made
        if type(node.func) is cst.Subscript:
            dispatched = self._dispatched(node)
            if dispatched is not None:
                return dispatched
        func = node.func
        receiver = UNKNOWN
        if type(func) is cst.Attribute:
            receiver = self.evaluate(func.value)
        elif type(func) is cst.Name:
            self._read(func.value)
            if func.value in self.parameters and self.env.get(func.value, UNKNOWN).kind is Kind.UNKNOWN:
                self.called_parameters.add(self.parameters.index(func.value))  # ``func(t, y)``
        else:
            self.evaluate(func)
        arguments = [self.evaluate(arg.value) for arg in node.args]
        self._call_events(node, receiver, arguments)
        forwards_before = self.context.forwards_run
        value = self._call_value(node, receiver, arguments)
        if self.context.forwards_run != forwards_before:
            self.context.facts.forward_calls.add(id(node))  # a new graph at every call, whatever its inputs
        if self.no_grad:
            return value.with_state(State.DETACHED) if value.state is not State.DETACHED else value
        return value

    def _tensor_test(self, test: cst.BaseExpression) -> Optional[str]:
        """The name ``torch.is_tensor(x)`` or ``isinstance(x, torch.Tensor)`` tests, else None."""
        return tensor_tested(test, self.context.aliases.qualify)

    def _call_value(self, node: cst.Call, receiver: Value, arguments: list[Value]) -> Value:
        func = node.func
        name = self.context.aliases.qualify(func) or ""
        identifier = last_identifier(func) or ""
        method = func.attr.value if type(func) is cst.Attribute else None
        positional = [value for arg, value in zip(node.args, arguments) if arg.keyword is None and not arg.star]
        key = dotted(func)

        if name in vocab.AUTOGRAD_GRAD:
            create_graph = self._flag(keyword(node, "create_graph"))
            if create_graph:
                return Value(State.ATTACHED, Kind.UNKNOWN, double_backward=True)
            return DETACHED if keyword(node, "create_graph") is None or create_graph is False else UNKNOWN
        if method in ("item", "tolist") or name in ("float", "int", "bool", "len", "str", "round", "repr", "format"):
            if method is None:
                for arg in node.args:
                    self._number_read(arg.value)
            elif type(func) is cst.Attribute:
                self._number_read(func.value)
            return NUMBER
        if method in vocab.NUMBER_METHODS and receiver.kind is not Kind.MODULE and receiver.cls is None:
            return NUMBER  # ``x.size(0)``, ``x.numel()``
        if name == "getattr" and len(node.args) >= 2 and node.args[0].keyword is None:
            read = self._attributes_named(node.args[0].value, node.args[1].value)
            if read is not None:
                return read  # (else the builtin's default below: a plain object's member)
        if name in vocab.DETACHING_CALLABLES:
            if name.startswith("torch.") and is_true(keyword(node, "requires_grad")):
                return LEAF  # ``torch.zeros(n, requires_grad=True)``
            return DETACHED_TENSOR if name.startswith("torch.") else NUMBER if name in _NUMBER_BUILTINS else DETACHED
        if name in ("copy.deepcopy", "copy.copy") and positional:
            return positional[0]  # a copy of a (frozen) module is one
        if receiver.kind is Kind.FUNCTION_MODULE and receiver.cls is not None and method in vocab.MODULE_SELF_METHODS and method != "requires_grad_":
            return receiver  # ``frozen.to(device)``, ``frozen.eval()``
        if method == "requires_grad_" and (
            receiver.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) or receiver.cls is not None or _calls_module_method(func)
        ):
            return _with_grad_enabled(receiver, not any(_is_false(arg) for arg in node.args))
        if method == "requires_grad_" and receiver.kind is not Kind.MODULE and not any(_is_false(arg) for arg in node.args):
            return LEAF  # a fresh leaf: no history, but what is computed from it is attached
        if receiver.leaf and method is not None and method not in vocab.DETACHING_METHODS:
            return Value(State.ATTACHED, Kind.TENSOR)  # ``w.t()``, ``w.sum()`` record a graph
        if method in _CUTTING_METHODS and type(func) is cst.Attribute:
            self.context.facts.detached_reads |= data_mentions(func.value)
        if (
            method in vocab.DETACHING_METHODS and receiver.kind is Kind.UNKNOWN and type(self.statement) is cst.Expr
            and self.statement.value is node and type(func) is cst.Attribute and dotted(func.value) is not None
        ):
            # ``dec_state.detach()`` as a statement: a no-op on a tensor, so the object is one of the
            # file's classes whose own ``detach`` replaces its state (the one class defining it)
            implemented = self.context.methods_named(method)
            if len(implemented) == 1:
                return self._apply_summary(node, implemented[0], receiver, arguments)
        if method in vocab.DETACHING_METHODS and receiver.kind is not Kind.MODULE and receiver.cls is None:
            return DETACHED_TENSOR if receiver.kind is Kind.TENSOR or receiver.attached else DETACHED
        if type(func) is cst.Name and func.value in self.factories and self._lookup(func.value).kind is Kind.UNKNOWN:
            built = self._instance_of(self.factories[func.value])
            if built is not None:
                return built  # ``ac = actor_critic(obs_space, act_space)``: an instance of the default's class
        definition = self._resolve(func, node.args)
        if definition is not None and self.context.imports_from_project and _is_stub(definition) and type(func) is cst.Attribute and dotted(func.value) == "self":
            # ``self.learn(batch)`` in a base class whose ``learn`` is abstract and implemented
            # by one subclass in another module of the project: that implementation runs
            override = self._project_override(definition, func.attr.value)
            if override is not None:
                return self._apply_imported(node, override, receiver, arguments)
        handed = self._handed_in_module(func, definition)
        if handed is not None:
            # (a module of the file handed in and called: its forward runs, and what it keeps on
            # itself from its input is seen here, as for any module call)
            return self._forward(handed, arguments, node, key)
        if definition is not None and definition.name.value != "__init__":
            applied = self._apply_summary(node, definition, receiver, arguments)
            if not applied.detached and self.context.detaching_helper(definition):
                # ``detach_tree(obj)``, recursing through dicts and lists to ``obj.detach()``:
                # the summary cannot follow the recursion, its name and body say what it does
                return applied.with_state(State.DETACHED)
            return applied
        if definition is not None or (type(func) is cst.Name and func.value in self.context.classes):
            cls_name = func.value if type(func) is cst.Name else ""
            if definition is not None:
                self._apply_summary(node, definition, UNKNOWN, arguments, construct=True)
            info = self.context.classes.get(cls_name)
            if info is not None and info.holds_arguments and any(argument.attached for argument in arguments) and not self.no_grad:
                # ``Sample(tokens=tokens, log_probs=logp)``: the record holds the graph of its fields
                return _record(info.name, info.fields, node, arguments)
            if info is not None and info.holds_arguments and any(argument.params for argument in arguments):
                # in a summary: ``Transition(*args)`` holds whatever its caller passes
                return replace(combine(*arguments), kind=Kind.INSTANCE, cls=cls_name, elements=None, keys=None)
            return Value(State.DETACHED, Kind.MODULE if info is not None and info.is_module else Kind.INSTANCE, cls=cls_name)
        imported = self._imported_callee(func, receiver) if definition is None else None
        if imported is None and definition is None:
            imported = self._handed_in_method(func, receiver)
        if imported is not None:
            return self._apply_imported(node, imported, receiver, arguments)
        constructed = self._constructed(node, name, identifier, positional)
        if constructed is not None:
            return constructed
        if "detach" in identifier.lower() or "repackage" in identifier.lower():
            return DETACHED
        if identifier.lower().endswith("numpy") or identifier.lower() in ("to_np", "tonp"):
            return NUMBER  # ``utils.to_numpy(loss)`` from elsewhere: an array, no graph
        if name.startswith(("numpy.", "np.", "math.")):
            return NUMBER
        if name.endswith("functional_call"):
            self._mark_loops(forward=True)
            return Value(State.ATTACHED)
        if name.startswith(vocab.DISTRIBUTION_PREFIX):
            return combine(*arguments) if arguments else UNKNOWN
        if name in vocab.OBJECT_LOADERS:
            return UNKNOWN
        if name in vocab.GRAPH_PASSING_FUNCTIONS:
            if arguments and positional and positional[0].kind is Kind.INSTANCE:
                # ``replace(state, h=h)``: the same kind of record, holding the new fields' graphs
                return replace(combine(*arguments), kind=Kind.INSTANCE, cls=positional[0].cls)
            return combine(*arguments) if arguments else UNKNOWN
        if name.startswith("torch."):
            if name.startswith(("torch.utils.", "torch.cuda.", "torch.distributed.", "torch.backends.")):
                return UNKNOWN
            if name.count(".") == 1 and positional:
                by_dim = keyword(node, "dim") is not None or (len(positional) > 1 and positional[1].kind is Kind.NUMBER)
                several = _tuple_result(name[len("torch."):], positional[0], by_dim)
                if several is not None:
                    return several
            if any(argument.leaf and argument.kind is Kind.TENSOR for argument in arguments) and not self.no_grad:
                self._mark_loops(forward=True)  # ``F.linear(v, self.weights)``: a forward from parameters
            return combine(*arguments) if arguments else UNKNOWN
        if method == "parameters" and receiver.kind in (Kind.MODULE, Kind.UNKNOWN, Kind.INSTANCE) and not receiver.attached:
            return Value(State.DETACHED, Kind.CONTAINER, leaf=True)  # leaves that require grad
        if method in ("named_parameters", "buffers", "named_buffers") and not positional:
            # (name, parameter) pairs or buffers, whatever the receiver was taken for: no graph
            # (a loop over the pairs binds each parameter as a leaf: ``_for``)
            return Value(State.DETACHED, Kind.CONTAINER)
        if receiver.kind is Kind.MODULE and method is not None and key is not None:
            submodule = self._lookup(key)
            if submodule.kind is Kind.MODULE and submodule.cls is not None and submodule.cls != receiver.cls:
                # ``self.norm(x)`` inside the outer module's forward: the submodule's forward runs
                # (and keeps its state on ``self.norm``), not the outer module's.
                return self._forward(submodule, arguments, node, key)
        if receiver.kind is Kind.MODULE and method is not None:
            if method in vocab.MODULE_SELF_METHODS:
                return receiver
            if method in vocab.MODULE_PLAIN_METHODS:
                return DETACHED
            if not node.args and receiver.cls is None and method not in vocab.FORWARD_METHODS:
                # ``self.net.get_grads()`` of a module the file does not show: no input to run a
                # forward on; it reads its own parameters, buffers or gradients (unknown which)
                return UNKNOWN
            if self._loss_helper_given_no_graph(node, receiver, arguments):
                return UNKNOWN
            return self._forward(receiver, arguments)
        if method == "setdefault" and len(positional) == 2 and positional[1].cls is not None and positional[1].kind in (Kind.INSTANCE, Kind.MODULE):
            return positional[1]  # ``self.summaries.setdefault(key, Summary())``: a Summary, the default or the one kept
        if receiver.keys is not None and method in _DICT_READS:
            return _dict_read(receiver, method or "", node)
        if method == "step" and (receiver.kind is Kind.OPTIMIZER or receiver.cls is None) and node.args:
            # ``optimizer.step(closure)`` runs the closure (whatever the optimizer parameter is
            # known as: a function of the file handed to ``step`` is one)
            closure = self._resolve(node.args[0].value) if isinstance(node.args[0].value, cst.Name) else None
            if closure is not None:
                return self._apply_summary(node, closure, UNKNOWN, [])
        if receiver.attached or receiver.kind is Kind.TENSOR or (receiver.params and method in _VALUES_AND_INDICES):
            # (in a summary too: ``greedy = q.max(dim=2)`` of a parameter gives indices without graph)
            by_dim = keyword(node, "dim") is not None or bool(positional and positional[0].kind is Kind.NUMBER)
            several = _tuple_result(method or "", receiver, by_dim)
            if several is not None:
                return several  # ``out.unbind(0)``, ``x.max(1)``: tensors, not one tensor
            if method in vocab.IN_PLACE_UPDATES:
                if not receiver.attached and any(argument.attached for argument in arguments) and not self.no_grad:
                    # ``torch.zeros(n, d).index_add_(0, idx, h)``: what is written in brings its graph
                    return replace(combine(receiver, *arguments), kind=Kind.TENSOR)
                return receiver
            if method in vocab.COMBINING_METHODS and not receiver.attached and not self.no_grad:
                given = [argument for argument in arguments if argument.attached and argument.kind in (Kind.TENSOR, Kind.UNKNOWN)]
                if given:
                    return replace(combine(receiver, *given), elements=None, kind=Kind.TENSOR)  # ``avg.lerp(loss, 0.1)``
                if any(argument.leaf and argument.kind is Kind.TENSOR for argument in arguments):
                    return Value(State.ATTACHED, Kind.TENSOR)  # ``x.mm(self.weight)``: a graph from a parameter
                from_parameters = frozenset().union(*(argument.params for argument in arguments if argument.kind in (Kind.TENSOR, Kind.UNKNOWN)))
                if from_parameters and not receiver.params:
                    # in a summary, ``self.sums.index_add(0, q, losses)``: a graph iff ``losses`` has one
                    return Value(State.UNKNOWN, Kind.TENSOR, params=from_parameters)
            return replace(receiver, elements=None, kind=Kind.TENSOR if receiver.kind in (Kind.TENSOR, Kind.UNKNOWN) else receiver.kind)
        if receiver.detached and receiver.kind is Kind.UNKNOWN and receiver.cls is None and method in _TENSOR_METHODS:
            return DETACHED  # ``y.detach().cpu()``: still no graph, whatever ``y`` was
        if receiver.params and method in vocab.PASSING_WRAPPERS and len(arguments) == 1:
            return arguments[0]  # ``accelerator.gather(loss)`` on an accelerator handed in: the loss, gathered
        if receiver.params and method is not None:
            return Value(State.UNKNOWN, params=receiver.params, via_entries=receiver.via_entries)  # a parameter's method: depends on the argument
        # (``self.heads[i](x)``: the callee is an expression, its value was recorded by ``_call``)
        callee = self._lookup(key) if key is not None else self.values.get(id(func), UNKNOWN)
        if callee.kind is Kind.MODULE:
            if self._loss_helper_given_no_graph(node, receiver, arguments):
                return UNKNOWN
            return self._forward(callee, arguments, node, key)
        if callee.kind is Kind.FUNCTION_MODULE:
            return combine(*arguments) if arguments else UNKNOWN
        if callee.kind is Kind.LOSS_FUNCTION:
            return self._loss_value(positional, arguments)
        if method in vocab.PASSING_WRAPPERS and len(arguments) > 1:
            return tuple_of(arguments)
        if method in vocab.PASSING_WRAPPERS and len(arguments) == 1:
            return arguments[0]
        if self._is_loss_call(key, identifier, name):
            return self._loss_value(positional, arguments)
        if self._is_model_call(func, key, identifier):
            return self._forward(Value(State.DETACHED, Kind.MODULE), arguments)
        if type(func) is cst.Name and identifier == "map" and len(positional) >= 2:
            # ``map(sum, zip(totals, losses))``: a builtin or torch function applied to each item
            # keeps the items' graphs; any other mapper may compute anything.
            mapper = self.context.aliases.qualify(node.args[0].value) or dotted(node.args[0].value) or ""
            if mapper in vocab.PASSING_BUILTINS or (mapper.startswith("torch.") and not mapper.startswith("torch.nn.")):
                inner = combine(*positional[1:])
                return Value(inner.state, Kind.CONTAINER, inner.double_backward, params=inner.params)
        if type(func) is cst.Name and identifier == "dict" and len(positional) == 1 and not node.args[0].keyword and positional[0].keys is not None:
            return positional[0]  # ``dict(d)``: a copy, entry by entry
        if type(func) is cst.Name and identifier in ("iter", "next") and len(positional) == 1 and positional[0].kind in (Kind.MODULE, Kind.CONTAINER):
            # ``layers = iter(flow)`` then ``layer = next(layers)``: the iterator holds what the
            # iterable holds, ``next`` gives one of its elements, as a ``for`` over it does
            held = positional[0]
            if identifier == "iter":
                return held
            if held.elements and all(e.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) for e in held.elements):
                return join(*held.elements)
            return held.part() if held.attached or held.params else UNKNOWN
        if type(func) is cst.Name and identifier in vocab.PASSING_BUILTINS:
            if identifier == "dict" and node.args and all(arg.keyword is not None for arg in node.args):
                # ``dict(loss=loss, log_vars=log_vars)``: each entry what its keyword gives, as
                # ``{"loss": loss, "log_vars": log_vars}`` (mmcv's ``train_step`` outputs)
                return keyed({arg.keyword.value: self.values.get(id(arg.value), UNKNOWN) for arg in node.args if arg.keyword is not None})
            if identifier in ("list", "tuple", "sorted", "reversed", "dict"):
                if len(arguments) == 1 and arguments[0].leaf and arguments[0].kind is Kind.CONTAINER:
                    return arguments[0]  # ``list(net.parameters())``: the same leaves, no graph yet
                inner = combine(*arguments) if arguments else DETACHED
                return Value(inner.state, Kind.CONTAINER, inner.double_backward, params=inner.params)
            return combine(*arguments) if arguments else UNKNOWN
        if any(argument.attached for argument in arguments) and not _is_logging(node) and not (
            method in vocab.STORING_METHODS or receiver.kind in (Kind.CONTAINER, Kind.TENSOR, Kind.TUPLE)
        ):
            for loop in self.loops:
                loop.opaque_use = True  # a callee the analysis cannot see may backward it
        return UNKNOWN

    def _forward(
        self, module: Value, arguments: list[Value], node: Optional[cst.Call] = None, owner: Optional[str] = None
    ) -> Value:
        """A module's forward pass: its output is attached (outside no-grad), whatever it is called.
        For a module class of the file, what its ``forward`` does to ``self`` happens here."""
        self._mark_loops(forward=True)
        if node is not None and self.loops:
            for key in self._state_read_by(node):
                self._read(key)  # (``self.state`` read by the forward: a read of ``model.state`` here)
        candidates = self.module_candidates.get(owner, ()) if owner is not None and module.cls is None else ()
        owner = self.module_aliases.get(owner, owner) if owner is not None else None
        if candidates and node is not None and owner is not None:
            # one of the layers' classes, each forward's effects; past the first layer with
            # parameters, a layer's input is the previous layer's output: attached
            flowing = [ATTACHED, *arguments[1:]] if any(part.kind is Kind.MODULE for part in candidates) and not self.no_grad else arguments
            for candidate in candidates:
                self._contained_forward(candidate, flowing, node, owner, export=True)
        elif module.cls in vocab.MODULE_CONTAINERS and module.elements and node is not None and owner is not None:
            # ``nn.Sequential(nn.Linear(..), MyNorm(..))``: each module's forward runs on what
            # the previous one returned (attached once a module with parameters ran).
            flowing = arguments[:1]
            for element in module.elements:
                self._contained_forward(element, flowing, node, owner)
                if element.kind is Kind.MODULE:
                    flowing = [Value(State.ATTACHED)]
        else:
            self._contained_forward(module, arguments, node, owner)
        if self.loops and not self.no_grad:
            for effect, hook, parameters, store_node in self.context.hooks:
                self._apply_hook(effect, hook, parameters, store_node)
        cls = module.cls or ""
        if cls in ("torch.nn.LSTM",):
            return tuple_of([ATTACHED, tuple_of([ATTACHED, ATTACHED])])
        if cls in ("torch.nn.GRU", "torch.nn.RNN"):
            return tuple_of([ATTACHED, ATTACHED])
        if cls.startswith("torch.nn."):
            return ATTACHED
        summary = self._forward_summary(module)
        if summary is not None:
            # Per element, as its forward returns it (``scores, lengths.tolist()``); what the
            # summary cannot tell is a module's output: attached.
            bound = {0: module, **{i + 1: a for i, a in enumerate(arguments)}}
            return _forward_output(summary.returns, bound)
        return Value(State.ATTACHED)

    def _forward_summary(self, module: Value) -> Optional[Summary]:
        """The summary of the ``forward`` of a module class of the file or of the project."""
        if not module.cls:
            return None
        # (a module class defining ``__call__`` itself runs that, not ``nn.Module.__call__``:
        # Dreamer's agent trains, then returns its policy's output and a detached state)
        forward = self.context.method(module.cls, "__call__") or self.context.method(module.cls, "forward")
        if forward is not None:
            if _is_stub(forward):
                return None  # an abstract ``forward``: a subclass's runs, a module's output
            walked = self.context.walked.get(id(forward))
            return walked.summary if walked is not None else None
        forward_summary = self.context.implementation(module.cls, "forward")
        return None if forward_summary is not None and _does_nothing(forward_summary) else forward_summary

    def _contained_forward(
        self, module: Value, arguments: list[Value], node: Optional[cst.Call], owner: Optional[str], export: bool = False
    ) -> None:
        forward = self.context.method(module.cls, "forward") if module.cls else None
        if forward is not None and node is not None and owner is not None and id(forward) not in self.context.in_progress:
            self._forward_effects(forward, module, arguments, node, owner, export)
        elif forward is None and module.cls and node is not None and owner is not None:
            # A module class of another module of the project: what its forward keeps on
            # ``self`` from its input, seen at this call (its summary names its file).
            imported = self.context.imported_method(module.cls, "forward")
            if imported is not None:
                bound = {0: module, **{i + 1: a for i, a in enumerate(arguments)}}
                effects = [e for e in imported.effects if e.target.startswith("self.") and e.value.params - {0}]
                if effects:
                    self._apply_effects(node, replace(imported, effects=effects), bound)

    def _forward_effects(
        self, forward: cst.FunctionDef, module: Value, arguments: list[Value], node: cst.Call, owner: str, export: bool = False
    ) -> None:
        """Carries and stores on ``self`` that depend on the input (a running statistic updated
        from an attached input): reported where the forward does them, in this loop."""
        callee = self.walk_function(forward, inherited_no_grad=False)
        bound = {0: module, **{i + 1: a for i, a in enumerate(arguments)}}
        if owner.endswith(".forward"):
            owner = owner[: -len(".forward")]  # ``self.forward(batch)`` keeps its state on ``self``
        for effect in callee.summary.effects:
            if not effect.target.startswith("self.") or (not effect.value.params - {0} and effect.kind != "carry"):
                continue  # what does not depend on the input is reported inside forward itself
            # A carried state is also seen here, in the calling loop (whose backward it reaches).
            value = substitute(effect.value, bound)
            where = callee.effect_nodes.get(id(effect))
            if not value.attached or where is None or effect.kind not in ("carry", "accumulate", "store"):
                continue
            key = f"{owner}.{effect.target[len('self.'):]}"
            for prefix in key_prefixes(key):
                self._read(prefix)
            origin = f" in {self.context.externals.shown(effect.origin)}" if effect.origin else ""  # a module class of another file
            via = f"{effect.where}{origin} {_VERBS.get(effect.kind, 'keeps it in')} {key}"
            inner = self._callee_store(callee, effect) or self._deeper_store(effect)
            if effect.kind == "store" and inner is not None:
                # reported at the forward's statement, naming what it stores (not the call's result)
                self.function.stores.append(
                    Store(inner.node, self.context.next_seq(), self.loop, self.function, inner.container, key, inner.method,
                          inner.value_node, value, frozenset({"<call>"}), via, callee.name, given=True)
                )
            elif effect.kind == "store":
                self.function.stores.append(
                    Store(where, self.context.next_seq(), self.loop, self.function, node.func, key, effect.method or "append", node, value, frozenset({"<call>"}), via)
                )
            else:
                self._binding(where, key, value, mentions(node), fed=True, via=via, in_callee=callee.name)
                outside = self._outside_target(key)
                moving = effect.kind == "carry" or effect.kind == "accumulate" and effect.method == DECAYING_SUM
                if (export or not self.loops) and moving and outside is not None and outside.startswith("self.") and not self._in_batch_loop():
                    # a layer of ``self.layers`` keeps its running statistics: the outer module
                    # keeps them, for the loop that calls it (``flow.log_prob(x)`` per batch); so
                    # does a trainer's step calling a loss module that averages its input
                    self._effect(replace(effect, kind="carry", target=outside, value=value), where)
            top = self.context.def_tops.get(id(forward))
            if top is not None:
                self.context.facts.top_of[id(where)] = top  # reported in the class, not at the call
        on_arguments = [effect for effect in callee.summary.effects if argument_position(effect.target) is not None]
        if on_arguments:
            # ``state.hidden = hidden`` on an object it is given: the caller's object holds it now
            self._apply_effects(node, replace(callee.summary, effects=on_arguments), bound, callee)

    def _constructed(self, node: cst.Call, name: str, identifier: str, positional: list[Value]) -> Optional[Value]:
        """What a constructor or factory call builds, from the knowledge table."""
        last = name.rsplit(".", 1)[-1]
        if name in vocab.MODULE_CONTAINERS:
            return Value(State.DETACHED, Kind.MODULE, cls=name, elements=self._contained_modules(node))
        if name in vocab.MODULE_WRAPPERS and positional and positional[0].kind in (Kind.MODULE, Kind.FUNCTION_MODULE):
            return positional[0]  # ``nn.DataParallel(model)`` runs the wrapped model's forward
        if name.startswith("torch.nn.") and last[:1].isupper() and "." not in name[len("torch.nn."):]:
            if last.endswith("Loss"):
                return Value(State.DETACHED, Kind.LOSS_FUNCTION)
            if last in vocab.PARAMETER_FREE_MODULES:
                return Value(State.DETACHED, Kind.FUNCTION_MODULE)
            if last == "Parameter":
                return LEAF
            if last in ("ParameterList", "ParameterDict"):
                # what it holds are parameters, however it is filled (``d['W'] * x`` records a graph)
                return Value(State.DETACHED, Kind.CONTAINER, elements=(LEAF,), open_tail=True)
            if last in vocab.NOT_MODULES:
                return DETACHED
            return Value(State.DETACHED, Kind.MODULE, cls=name)
        if name.startswith("torch.optim.") and last[:1].isupper() and not any(part in name for part in vocab.NOT_OPTIMIZERS):
            if node.args and not name.startswith("torch.optim.lr_scheduler."):
                self._note_optimized(node.args[0].value)
            return Value(State.DETACHED, Kind.OPTIMIZER)
        if name in vocab.LOADER_CONSTRUCTORS:
            return Value(State.DETACHED, Kind.LOADER)
        if name.startswith(vocab.MODULE_FACTORIES):
            if name in vocab.MODULE_WRAPPERS and positional:
                inner = positional[0]  # the wrapped module, frozen or not
                return inner if inner.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) else Value(State.DETACHED, Kind.MODULE)
            return Value(State.DETACHED, Kind.MODULE)
        if name in vocab.INFERENCE_PIPELINES:
            return Value(State.DETACHED, Kind.INSTANCE)  # ``generator = pipeline("text-generation")``
        if name == "collections.defaultdict" and node.args and node.args[0].keyword is None:
            # ``defaultdict(AverageMeter)``: every entry is an instance of that class
            factory = dotted(node.args[0].value)
            instance = self._instance_of(factory) if factory is not None else None
            if instance is not None:
                return Value(State.DETACHED, Kind.CONTAINER, elements=(instance,), open_tail=True)
        if identifier in ("DistributedDataParallel", "DataParallel", "DDP", "FSDP", "FullyShardedDataParallel"):
            return Value(State.DETACHED, Kind.MODULE)
        if identifier == "from_pretrained" and type(node.func) is cst.Attribute:
            owner = last_identifier(node.func.value) or ""
            if owner.endswith(vocab.INFERENCE_PIPELINES):
                return Value(State.DETACHED, Kind.INSTANCE)  # not a module, whatever it is called
            if owner.endswith(vocab.NOT_MODULE_PRETRAINED):
                return DETACHED
            return Value(State.DETACHED, Kind.MODULE)
        if node.args and is_parameters_call(node.args[0].value) and last[:1].isupper():
            return Value(State.DETACHED, Kind.OPTIMIZER)  # ``AdamW(model.parameters(), lr=...)``
        if identifier[:1].isupper() and ("Optim" in identifier or identifier in ("AdamW", "Adam", "SGD", "Lion", "Adafactor")):
            if node.args:
                self._note_optimized(node.args[0].value)
            return Value(State.DETACHED, Kind.OPTIMIZER)
        if identifier.endswith("GradScaler"):
            return Value(State.DETACHED, Kind.OPTIMIZER, cls="GradScaler")
        return None

    def _contained_modules(self, node: cst.Call) -> Optional[tuple[Value, ...]]:
        """The modules an ``nn.Sequential(a, b)`` or ``nn.ModuleList([C() for _ in ...])``
        holds, in order (their values were recorded when the arguments were evaluated)."""
        parts: list[cst.BaseExpression] = []
        for arg in node.args:
            inner = arg.value
            if arg.keyword is not None or arg.star == "**" or (arg.star and type(inner) is not cst.Name):
                return None
            if type(inner) is cst.List or type(inner) is cst.Tuple:
                parts.extend(element.value for element in inner.elements)
            elif type(inner) is cst.ListComp or type(inner) is cst.GeneratorExp:
                parts.append(inner.elt)
            elif type(inner) is cst.Dict:
                parts.extend(entry.value for entry in inner.elements if type(entry) is cst.DictElement)
            elif type(inner) is cst.Name and self._lookup(inner.value).kind is Kind.CONTAINER:
                # ``nn.ModuleList(layers)`` (or ``nn.Sequential(*layers)``) with ``layers +=
                # [Coupling(d), Norm(d)]`` in a loop
                parts.extend(_put_in_list(self.function.node, inner.value))
            else:
                parts.append(inner)
        values = tuple(self.values.get(id(part), UNKNOWN) for part in parts)
        return values if values and all(v.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) for v in values) else None

    def _instance_call(self, func: cst.Name | cst.Attribute) -> Optional[cst.FunctionDef]:
        """``compute_loss(pred, y)`` for an instance of a class of the file: its ``__call__``."""
        key = dotted(func)
        called = self._lookup(key) if key is not None else UNKNOWN
        if called.kind is Kind.INSTANCE and called.cls is not None:
            return self.context.method(called.cls, "__call__")
        return None

    def _handed_in_module(self, func: cst.BaseExpression, definition: Optional[cst.FunctionDef]) -> Optional[Value]:
        """A module of the file that ``_only_callable_taking`` found for an object handed in and
        called (``dino_loss(student_out, teacher_out)``): an instance of its class."""
        if definition is None or definition.name.value != "forward" or type(func) not in (cst.Name, cst.Attribute):
            return None
        key = dotted(func)
        if key is None or self._lookup(key).kind is not Kind.UNKNOWN:
            return None
        cls = self.context.owner.get(id(definition))
        info = self.context.classes.get(cls) if cls is not None else None
        return Value(State.DETACHED, Kind.MODULE, cls=cls) if info is not None and info.is_module else None

    def _only_own_methods(self, cls: str) -> bool:
        """The class inherits no method the file does not show (not a module, no base from
        elsewhere): a ``self.<name>(...)`` it does not define calls an object it was given."""
        chain = self.context.class_chain(cls)
        return not any(info.is_module for info in chain) and all(
            base in self.context.classes or base == "object" for info in chain for base in info.bases
        )

    def _only_callable_taking(self, args: Sequence[cst.Arg]) -> Optional[cst.FunctionDef]:
        """For an object handed in from outside and called (``self.loss_fn(self.model, sample)``):
        the one class of the file whose instances, called, take exactly those arguments (a
        module's ``forward``, or ``__call__``), when no other class of the file could be it."""
        positional = [arg for arg in args if arg.keyword is None and not arg.star]
        if len(positional) < 2 or len(positional) != len(args):
            return None  # (one argument fits any model: ``self.net(x)`` tells nothing)
        found = []
        for info in self.context.classes.values():
            if info.name == self.function.cls:
                continue  # (not the object calling it)
            entry = info.methods.get("forward") if info.is_module else None
            entry = entry or info.methods.get("__call__")
            if entry is not None and not _is_stub(entry) and _takes_only_given_arguments(entry, positional):
                found.append(entry)
        return found[0] if len(found) == 1 else None

    def _imported_callee(self, func: cst.BaseExpression, receiver: Value) -> Union[Summary, ClassSummary, None]:
        """The function, method or class of another module of the project that a callee names."""
        if not self.context.imports_from_project:
            return None  # (every look-up below would find nothing)
        if type(func) is cst.Attribute and _is_super(func.value):
            # ``super().generate(...)`` in a class whose base another module defines
            # (Whisper's mixin on ``GenerationMixin``, whose ``generate`` runs without grad).
            return self.context.imported_method(self.function.cls, func.attr.value) if self.function.cls else None
        if type(func) is cst.Attribute and receiver.cls is not None:
            method = self.context.implementation(receiver.cls, func.attr.value)
            if method is not None:
                return method
        default = self._default_callable(func)
        if default is not None:
            return self._imported_callee(default, UNKNOWN)
        key = dotted(func)
        element = type(func) is cst.Attribute and _element_owner(func.value) is not None  # ``meters[k].update(v)``
        if key is None and not element:
            return None
        if key is not None:
            called = self._lookup(key)
            if called.kind is Kind.INSTANCE and called.cls is not None:
                return self.context.imported_method(called.cls, "__call__")  # an imported class's instance, called
            if key.split(".", 1)[0] not in self.env:  # (else a local that shadows the import)
                found = self.context.externals.resolve(key)
                if isinstance(found, (Summary, ClassSummary)):
                    return found
        if type(func) is cst.Attribute and receiver.kind is Kind.UNKNOWN and not receiver.params:
            # An object whose class the file does not show: a method only one imported class
            # defines, with effects (``meter.update``), is that class's (as for the file's own).
            name = func.attr.value
            if name.startswith("__") or name in _COMMON_METHODS or name in _TENSOR_METHODS or self.context.methods_named(name):
                return None  # (``images.clone()`` of a tensor handed in is no project class's ``clone``)
            candidates = self.context.externals.methods_named(name)
            if len(candidates) == 1 and candidates[0].effects:
                return candidates[0]
            if not candidates and self._injected(func.value):
                # An object handed in from outside (``self.logger = logger`` in ``__init__``),
                # typically built by the entry script from a class of another module that this
                # file never imports: the one class of the project whose method keeps what it
                # is given.
                owners = self.context.externals.project_methods_named(name)
                keeping = [candidate for candidate in owners if _keeps_its_arguments(candidate)]
                if len(keeping) == 1 and not any(candidate.no_grad for candidate in owners):
                    # (one owner running it under no_grad, ``FeatureBank.update``, is a class the
                    # object may as well be: then nothing says it keeps a graph)
                    return keeping[0]
        return None

    def _default_callable(self, func: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """``self.batch_states`` set in ``__init__`` from a parameter whose default is a
        function (``batch_states=batch_states``, pfrl's agents): that default, which a call of
        the attribute runs unless the caller handed in another; None for anything else."""
        if method_on_self(func) is None or self.function.cls is None:
            return None
        assert type(func) is cst.Attribute
        memo = self.context.default_callables
        if (self.function.cls, func.attr.value) in memo:
            return memo[(self.function.cls, func.attr.value)]
        found: Optional[cst.BaseExpression] = None
        init = self.context.method(self.function.cls, "__init__")
        assigned = self.context._attribute_assignments(self.function.cls, func.attr.value) if init is not None else ()
        if init is not None and len(assigned) == 1 and assigned[0][0] is init and type(assigned[0][1]) is cst.Name:
            param = next((p for p in (*init.params.params, *init.params.kwonly_params) if p.name.value == assigned[0][1].value), None)
            default = param.default if param is not None else None
            if default is not None and type(default) in (cst.Name, cst.Attribute) and dotted(default) not in ("None", "True", "False"):
                found = default
        memo[(self.function.cls, func.attr.value)] = found
        return found

    def _project_override(self, stub: cst.FunctionDef, method: str) -> Optional[Summary]:
        """The one implementation, by a subclass in another module, of the abstract ``method``
        of the class of this file that defines ``stub`` (None when there are none or several)."""
        cls = self.context.owner.get(id(stub))
        if cls is None:
            return None
        return self.context.sole_override(cls, method)

    def _handed_in_method(self, func: cst.BaseExpression, receiver: Value) -> Optional[Summary]:
        """``dqn.act_q(state)`` on an object handed in (a parameter, or ``self.x`` its
        ``__init__`` was given) whose class this file neither shows nor imports: the method of
        the one class of the project that defines a method of that name (``Agent.act_q`` of
        agent.py, built by main.py), whose summary says whether it runs without grad."""
        if type(func) is not cst.Attribute or receiver.cls is not None or receiver.kind not in (Kind.MODULE, Kind.UNKNOWN):
            return None
        name = func.attr.value
        if name.startswith("_") or name in _COMMON_METHODS or name in _TENSOR_METHODS or name in vocab.FORWARD_METHODS or self.context.methods_named(name):
            return None
        if not self._injected(func.value):
            return None
        candidates = self.context.externals.project_methods_named(name)
        if len(candidates) > 1:
            # ``cb.on_batch_end(step, pred, batch)`` over callbacks: a base class's no-op beside
            # the one subclass that keeps what it is given
            keeping = [candidate for candidate in candidates if _keeps_its_arguments(candidate)]
            others = [candidate for candidate in candidates if candidate not in keeping]
            if len(keeping) == 1 and all(_does_nothing(other) and self._overridden_by(other, keeping[0], name) for other in others):
                candidates = keeping
        return candidates[0] if len(candidates) == 1 else None

    def _overridden_by(self, default: Summary, override: Summary, method: str) -> bool:
        """Whether ``override`` is the one implementation of ``method`` that a subclass of
        ``default``'s class gives (a base's no-op in the same module, or in another module whose
        class the overriding class names among its bases)."""
        if default.module == override.module:
            return True
        found = self.context.sole_override(default.name.rsplit(".", 1)[0], method)
        return found is not None and (found.name, found.module) == (override.name, override.module)

    def _attributes_named(self, owner: cst.BaseExpression, name: cst.BaseExpression) -> Optional[Value]:
        """``getattr(model, "loss_" + name)``: what the attributes of ``model``'s class (of the
        file) whose names start with that text hold, together; None when the class or the
        text is not known."""
        prefix = _string_value(name) if type(name) is cst.SimpleString else None
        if type(name) is cst.BinaryOperation and type(name.operator) is cst.Add and type(name.left) is cst.SimpleString:
            prefix = _string_value(name.left)
        owner_key = dotted(owner)
        held = self._lookup(owner_key) if owner_key is not None else UNKNOWN
        cls = self.function.cls if owner_key == "self" else held.cls
        if not isinstance(prefix, str) or not prefix or owner_key is None or cls is None or cls not in self.context.classes:
            return None
        attributes = {
            target.attr.value
            for info in self.context.class_chain(cls) for method in info.methods.values()
            for node in subtree(method.body)
            if type(node) is cst.AssignTarget and type(target := node.target) is cst.Attribute
            and type(target.value) is cst.Name and target.value.value == "self" and target.attr.value.startswith(prefix)
        }
        if not attributes:
            return None
        return join(*(self._lookup(f"{owner_key}.{attribute}") for attribute in sorted(attributes)))

    def _bounded(self, key: str) -> bool:
        """``key`` is only ever assigned a ``deque`` with a ``maxlen`` (``self.deque =
        deque(maxlen=window_size)``, or a local one)."""
        if key.startswith("self.") and key.count(".") == 1 and self.function.cls is not None:
            assigned = self.context._attribute_assignments(self.function.cls, key[len("self."):])
        elif "." not in key and type(self.function.node) is cst.FunctionDef:
            method = self.function.node
            assigned = [
                (method, small.value) for statement in iter_statements(method.body.body) if type(statement) is cst.SimpleStatementLine
                for small in statement.body
                if type(small) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == key for t in small.targets)
            ]
        else:
            return False
        return bool(assigned) and all(_bounded_deque(value, method) for method, value in assigned)

    def _injected(self, owner: cst.BaseExpression) -> bool:
        """``owner`` is a parameter of this function, or an attribute of ``self`` that the
        class's ``__init__`` sets from one of its parameters, or an element of one
        (``meters["loss"]`` of a dict of meters the caller builds)."""
        key = dotted(owner) or _element_owner(owner)
        if key is None:
            return False
        iterated = self._loop_iterable(key)
        if iterated is not None and iterated != key:
            key = iterated  # ``for cb in callbacks``: an element of what was handed in
        if key in self.parameters and key != "self":
            return True
        read_from = self._read_from_attribute(key)
        if read_from is not None:
            # ``tb_logger = self.config.tb_logger``: what the object (or its configuration) was given
            return self._injected(read_from)
        if key.startswith("self.") and key.count(".") > 1:
            key = ".".join(key.split(".", 2)[:2])  # ``self.config.tb_logger``: part of ``self.config``
        if not key.startswith("self.") or key.count(".") != 1 or self.function.cls is None:
            return False
        init = self.context.method(self.function.cls, "__init__")
        if init is None:
            return False
        names = _parameter_names(init)
        return any(
            type(value) is cst.Name and value.value in names
            for method, value in self.context._attribute_assignments(self.function.cls, key[len("self."):])
            if method is init
        )

    def _read_from_attribute(self, key: str) -> Optional[cst.Attribute]:
        """The attribute a local name was bound to, once and as it is (``tb_logger =
        self.config.tb_logger``); None for anything else."""
        if "." in key:
            return None
        bound = [binding for binding in self.function.bindings if binding.key == key]
        if len(bound) != 1:
            return None
        assign = single_assign(bound[0].node)
        return assign.value if assign is not None and type(assign.value) is cst.Attribute and dotted(assign.value) is not None else None

    def _apply_imported(
        self, node: cst.Call, imported: Union[Summary, ClassSummary], receiver: Value, arguments: list[Value]
    ) -> Value:
        """A call of a function, method or class another module of the project defines."""
        if isinstance(imported, ClassSummary):
            initialiser = imported.methods.get("__init__")
            if initialiser is not None:
                self._apply_callee(node, initialiser, UNKNOWN, arguments, construct=True)
            if imported.fields is not None and not self.no_grad and any(argument.attached for argument in arguments):
                return _record(imported.key, imported.fields, node, arguments)
            if imported.fields is not None and any(argument.params for argument in arguments):
                return replace(combine(*arguments), kind=Kind.INSTANCE, cls=imported.key, elements=None, keys=None)
            return Value(State.DETACHED, Kind.MODULE if imported.is_module else Kind.INSTANCE, cls=imported.key)
        if receiver.kind is Kind.MODULE and type(node.func) is cst.Attribute and node.func.attr.value == "forward":
            self._mark_loops(forward=True)
        return self._apply_callee(node, imported, receiver, arguments)

    def _apply_summary(
        self, node: cst.Call, definition: cst.FunctionDef, receiver: Value, arguments: list[Value], construct: bool = False
    ) -> Value:
        """A call of a function of this file: its summary applied to the arguments."""
        if id(definition) in self.context.in_progress:
            return UNKNOWN  # recursion: the summary is not known yet
        callee = self.walk_function(definition, inherited_no_grad=False)
        self.context.observations.called.add(callee.name)
        self.context.observations.callers.add((callee.name, self.function.name))
        self.context.observations.call_nodes.add((callee.name, id(node)))
        if self.no_grad and not self.function.summary.no_grad and not construct:
            self.context.observations.called_without_grad.add(callee.name)
        elif not self.no_grad and not construct:
            self.context.observations.called_with_grad.add(callee.name)
        if not construct:
            self._note_cut_arguments(node, callee)
        return self._apply_callee(node, callee.summary, receiver, arguments, construct, callee)

    def _note_cut_arguments(self, node: cst.Call, callee: Function) -> None:
        """Mark the arguments of ``node`` whose parameter reaches none of ``callee``'s returns
        through data (only through ``.detach()``, or not at all), and whose value the callee
        keeps nowhere (a history it only appends its own values to is such a parameter): the
        call's result carries no graph of theirs."""
        if type(callee.node) is not cst.FunctionDef:
            return
        # (nor one whose graph a backward of the callee differentiates: that call consumes it)
        kept = frozenset().union(
            *(effect.value.params for effect in callee.summary.effects),
            _backwarded_parameters(callee) if callee.summary.calls_backward else frozenset(),
        )
        returned: set[str] = set()
        for statement in own_returns(callee.node):
            if statement.value is not None:
                returned |= data_mentions(statement.value)
        reaching = callee.sources_of(returned, data_only=True) | returned
        roots = {key.split(".", 1)[0] for key in reaching}
        # (``hidden = repackage_hidden(hidden)`` first: what is returned under that name is new)
        replaced = _parameters_cut_on_entry(callee)
        for index, name in enumerate(callee.summary.parameters):
            if name in ("self", "cls") or name.startswith("*") or (name in roots and index not in replaced) or index in kept:
                continue
            argument = argument_at(node, callee.summary, index)
            if argument is not None:
                self.context.cut_arguments.add(id(argument))

    def _apply_callee(
        self,
        node: cst.Call,
        summary: Summary,
        receiver: Value,
        arguments: list[Value],
        construct: bool = False,
        callee: Optional[Function] = None,
    ) -> Value:
        """A summary (of this file's function or another module's) applied at a call."""
        bound = self._bind_arguments(node, summary, receiver, arguments)
        self.context.applied[id(node)] = summary
        if callee is not None and (type(node.func) is not cst.Attribute or receiver.cls is not None or dotted(node.func.value) == "self"):
            # (not for a method found by its name only, on an object whose class the walk does
            # not know yet: ``model_ema.update(model)`` guessed as ``AverageMeter.update`` would
            # make every meter's ``val`` a model, for good: evidence only grows)
            self._note_argument_classes(node, callee, bound)
        self._mark_loops(backward=summary.calls_backward, step=summary.steps_optimizer, forward=summary.runs_forward)
        if summary.calls_backward:
            # A helper that backwards: a later use of any graph built so far (TLK201), and of
            # what it is given (a sum returned to it is consumed), except arguments it replaces
            # by a detached copy before anything else (``x = x.detach().requires_grad_()``).
            given = frozenset(mentions(node))
            if callee is not None or summary.backwarded_parameters is not None:
                given = self._given_to_backward(node, summary, callee)
            if callee is not None:
                bound_here = {binding.key for binding in self.function.bindings}
                for key in given:  # ``self.put_gradients(total)``: what the loss ``total`` came from reaches a backward
                    looked = self._lookup(key)
                    # (not the data a helper runs its own forward on; a value the function computed
                    # that the analysis cannot classify is a graph when a helper backwards it)
                    if looked.attached or (key in bound_here and looked.state is State.UNKNOWN and self._given_as_backwarded(node, summary, callee, key)):
                        self.context.observations.backward_keys.append((self.function, key, self._loop_id(), False))
            self.function.backwards.append(
                BackwardCall(
                    node, self.context.next_seq(), self.loop, self.function, "call", given, given,
                    self._retain_argument(node, summary), None, self.statement, summary,
                )
            )
            self.function.backward_mentions.update(given)
        graph_arguments = frozenset(index for index, value in bound.items() if value.records_graph)
        if any(arg.star and value.records_graph for arg, value in zip(node.args, arguments)):
            graph_arguments = frozenset(range(len(summary.parameters)))  # ``step(*outputs)``: any of them
        self.context.facts.call_sites.append(
            CallSite(self.function, summary.key, self.context.next_seq(), self.loop, self.in_comprehension > 0, graph_arguments, id(node))
        )
        per_batch_callee = summary.name.rsplit(".", 1)[-1] in vocab.PER_BATCH_METHODS or summary.per_batch
        if not per_batch_callee:
            self._apply_effects(node, summary, bound, callee)
        elif any(argument_position(effect.target) is not None for effect in summary.effects):
            # A per-batch method reports what it keeps on ``self`` in its own body; what it keeps
            # in an object its caller gives it (``meters.update(loss)`` on a parameter) outlives
            # the call only as long as the caller keeps that object: reported here.
            on_arguments = [effect for effect in summary.effects if argument_position(effect.target) is not None]
            self._apply_effects(node, replace(summary, effects=on_arguments), bound, callee)
        self._transfer_attribute_flows(node, summary)
        if callee is not None and callee.grad_resets:
            # ``self.begin()`` whose body runs ``opt.zero_grad()``: a reset here, as if inlined
            self.function.grad_resets.append(GradReset(node, self.context.next_seq(), self.loop, self.function))
        if construct:
            return UNKNOWN
        returns = summary.returns
        guarded = bound.get(summary.tensor_parameter, UNKNOWN) if summary.tensor_parameter is not None else UNKNOWN
        if summary.tensor_returns is not None and (guarded.kind is Kind.TENSOR or guarded.kind is Kind.UNKNOWN and guarded.attached):
            # (a value of unknown kind that holds a graph is a tensor: ``loss / accum_grad``)
            returns = summary.tensor_returns  # ``to_float(loss)``: the ``if torch.is_tensor(x): return x.item()`` branch
        result = substitute(returns, bound)
        if summary.returned_attributes and not result.attached and result.kind in (Kind.NUMBER, Kind.TENSOR, Kind.UNKNOWN) and type(node.func) is cst.Attribute:
            # ``loss.get_loss()`` returning ``self.acc_loss``, which ``loss.eval_batch(...)`` fed
            # a graph in this function: the caller's object holds it, so does the result
            owner = dotted(node.func.value)
            held = {f"{owner}.{name}" for name in summary.returned_attributes}
            if owner is not None and owner != "self" and (
                any(self.env.get(key, UNKNOWN).attached for key in held)
                # (or what a method summed into it in this function: ``loss.eval_batch(out, y)``)
                or any(total.key in held and total.value.attached for total in self.function.accumulations)
            ):
                result = Value(State.ATTACHED, Kind.TENSOR if result.kind is Kind.NUMBER else result.kind)
        for index in summary.called_parameters:
            argument_node = argument_at(node, summary, index)
            if argument_node is not None and type(argument_node) is cst.Name and argument_node.value in self.parameters:
                self.called_parameters.add(self.parameters.index(argument_node.value))  # (handed on to a helper that calls it)
        if returns.state is State.UNKNOWN and returns.params and any(bound.get(index, UNKNOWN).kind is Kind.MODULE for index in summary.called_parameters):
            # ``odeint(func, y0)`` given a module: what it computes from its arguments went through
            # that module's forward (``rk4_step`` calling ``func(t, y)``), each element not known
            # otherwise too (a renderer's ``rgb, acc, depth`` from closures calling the field)
            result = result.with_state(State.ATTACHED)
            if result.elements is not None:
                result = replace(result, elements=tuple(
                    element.with_state(State.ATTACHED) if element.state is State.UNKNOWN and element.kind not in (Kind.NUMBER, Kind.NONE) else element
                    for element in result.elements
                ))
        if (summary.no_grad or self._grad_switched_off(node, summary)) and result.state is not State.DETACHED:
            result = result.with_state(State.DETACHED)
        if summary.module and summary.runs_forward and result.attached:
            self.context.imported_forwards[id(node)] = summary
        return result

    def _flag(self, argument: Optional[cst.Arg]) -> Optional[bool]:
        """A keyword switch's value as the file sets it by default (``create_graph=not
        self.first_order``, ``retain_graph=USE_MEMORY``); None when the code does not say."""
        if argument is None:
            return None
        return self.context.flag(argument.value, self._definition(), self.function.cls)

    def _may_be_true(self, argument: Optional[cst.Arg]) -> bool:
        """Some value the file gives the switch is True (``_FileContext.may_be_true``)."""
        if argument is None:
            return False
        return self.context.may_be_true(argument.value, self._definition(), self.function.cls)

    def _definition(self) -> Optional[cst.FunctionDef]:
        """The definition walked (None for the module's body)."""
        node = self.function.node
        return node if type(node) is cst.FunctionDef else None

    def _grad_switched_off(self, node: cst.Call, summary: Summary) -> bool:
        """The call passes ``False`` to the parameter that switches the callee's grad mode
        (``self.regression(data, track_gradient=False)`` in the validation loop)."""
        if summary.grad_parameter is None or summary.grad_parameter >= len(summary.parameters):
            return False
        argument = argument_at(node, summary, summary.grad_parameter)
        return type(argument) is cst.Name and argument.value == "False"

    def _retain_argument(self, node: cst.Call, summary: Summary) -> Optional[cst.Arg]:
        """``retain_graph=True`` given by keyword to a helper whose backward takes it from that
        parameter (``optimize(opt, loss, retain_graph=True)``)."""
        if summary.retain_parameter is None or summary.retain_parameter >= len(summary.parameters):
            return None
        name = summary.parameters[summary.retain_parameter]
        argument = keyword(node, "retain_graph" if name.startswith("**") else name)
        return argument if self._flag(argument) else None

    def _given_as_backwarded(self, node: cst.Call, summary: Summary, callee: Function, key: str) -> bool:
        """``key`` is the argument a helper passes to its own backward (``put_gradients(total)``
        running ``total.backward()``), not another argument of the call."""
        differentiated = set().union(*(call.output_mentions for call in callee.backwards if call.kind != "call"))
        for index, name in enumerate(summary.parameters):
            argument = argument_at(node, summary, index) if name in differentiated else None
            if argument is not None and dotted(argument) == key:
                return True
        return False

    def _given_to_backward(self, node: cst.Call, summary: Summary, callee: Optional[Function]) -> frozenset[str]:
        """What a call of a helper that backwards hands to that backward: the names its
        arguments mention, less those of the parameters whose values never reach it
        (``_backwarded_parameters``; another module's helper says which in its summary)."""
        backwarded = _backwarded_parameters(callee) if callee is not None else summary.backwarded_parameters
        offset = 1 if _binds_self(node, summary) else 0
        names = list(summary.parameters)
        given: set[str] = set(mentions(node.func))
        position = offset
        for arg in node.args:
            if arg.star:
                given |= mentions(arg.value)
                continue
            index = names.index(arg.keyword.value) if arg.keyword is not None and arg.keyword.value in names else position
            if arg.keyword is None:
                position += 1
            if backwarded is None or index >= len(names) or index in backwarded:
                # (``fake_B.detach()`` hands the helper's backward no graph of ``fake_B``)
                given |= data_mentions(arg.value)
        return frozenset(given)

    def _note_argument_classes(self, node: cst.Call, callee: Function, bound: dict[int, Value]) -> None:
        """What each argument of a call of the file's ``callee`` is an instance of (evidence
        for the parameter's value when every call agrees)."""
        for index, value in bound.items():
            if value.cls is not None and value.kind in (Kind.MODULE, Kind.INSTANCE) and index < len(callee.summary.parameters):
                # a module whose class the file does not show (``from_pretrained(...)``): some module
                self.context.observations.argument_classes.add((callee.name, index, value.cls or _SOME_MODULE if value.kind is Kind.MODULE else value.cls))
            elif (listed := _objects_of_one_class(value)) is not None and index < len(callee.summary.parameters):
                # ``guide.train(i, prompts)`` with ``prompts = [ClipPrompt(e) for e in embeds]``
                self.context.observations.argument_classes.add((callee.name, index, _LIST_OF + listed))
            elif value.kind is Kind.LOSS_FUNCTION and index < len(callee.summary.parameters):
                # ``self.vali(loader, criterion)`` with ``criterion = nn.MSELoss()``: what the callee
                # computes with it is attached only when what it is given is
                self.context.observations.argument_classes.add((callee.name, index, _SOME_LOSS))
        offset = 1 if _binds_self(node, callee.summary) else 0
        for position, arg in enumerate(a for a in node.args if a.keyword is None and not a.star):
            key = dotted(arg.value)
            if key is None or self._lookup(key).cls is not None:
                continue
            if self._is_evident_module(key):
                # ``greedy_decode(decoder, ...)`` with ``decoder.eval()`` before: a module
                self.context.observations.argument_classes.add((callee.name, position + offset, _SOME_MODULE))
            else:
                self.context.observations.module_candidates.add((callee.name, position + offset, tuple(self._evidence_keys(key))))

    def _bind_arguments(self, node: cst.Call, summary: Summary, receiver: Value, arguments: list[Value]) -> dict[int, Value]:
        """Parameter position -> argument value (``self`` is position 0 for a method)."""
        names = list(summary.parameters)
        bound: dict[int, Value] = {}
        offset = 0
        if _binds_self(node, summary):
            bound[0] = receiver
            offset = 1
        star_index, keywords_index = _star_positions(names)
        extra_positional: list[Value] = []
        extra_keywords: dict[str, Value] = {}
        position = offset
        for arg, value in zip(node.args, arguments):
            if arg.star == "*" and star_index is not None:
                extra_positional.append(value.part())  # ``f(*xs)``: some of xs's elements
            elif arg.star == "**" and keywords_index is not None:
                extra_keywords[f"**{len(extra_keywords)}"] = value.part()
            elif arg.star:
                continue
            elif arg.keyword is not None:
                if arg.keyword.value in names:
                    bound[names.index(arg.keyword.value)] = value
                elif keywords_index is not None:
                    extra_keywords[arg.keyword.value] = value
            elif star_index is not None and position >= star_index:
                extra_positional.append(value)
            else:
                bound[position] = value
                position += 1
        if star_index is not None:
            bound[star_index] = tuple_of(extra_positional) if extra_positional else Value(State.DETACHED, Kind.TUPLE, elements=())
        if keywords_index is not None:
            bound[keywords_index] = keyed(extra_keywords) if extra_keywords else Value(State.DETACHED, Kind.CONTAINER)
        return bound

    def _target_at_call(self, node: cst.Call, target: str, summary: Summary) -> Optional[str]:
        """The caller's key for a summary's effect target."""
        func = node.func
        if target == "self" or target.startswith("self."):
            # (``self``: the object itself, a dict or list subclass keeping its entries)
            rest = target[len("self"):]
            called_object = summary.name.rsplit(".", 1)[-1] in ("forward", "__call__")
            if type(func) is not cst.Attribute:
                # ``memory(feats)``: the instance called is ``self``
                owner = dotted(func) if called_object else None
                return f"{owner}{rest}" if owner is not None else None
            if called_object and func.attr.value not in ("forward", "__call__") and dotted(func) is not None:
                # ``self.dqn_loss(batch, ...)``: the object called is ``self.dqn_loss``, not ``self``
                return f"{dotted(func)}{rest}"
            owner = dotted(func.value)
            if owner is None and type(func.value) is cst.Call:
                # ``get_current().logkv_mean(key, val)``: the module's logger, kept for good
                made_by = self.context.applied.get(id(func.value))
                if made_by is not None and made_by.returns_global:
                    return f"{made_by.returns_global}{rest}"
            if owner is None:
                # ``self.meters[k].update(v)``: an object kept in a container lives as long as it
                return _element_owner(func.value)
            container = self._iterated_container(owner)
            if container is not None:
                return container  # ``for cb in self.callbacks: cb.on_batch_end(out)``: the callbacks outlive the loop
            return f"{owner}{rest}"
        position = argument_position(target)
        if position is not None:
            _head, _, rest = target.partition(".")
            # (``*args`` is the call's own tuple: nothing the caller holds)
            argument = argument_at(node, summary, position)
            owner = dotted(argument) if argument is not None else None
            if owner is None and type(argument) is cst.Call:
                owner = self._accessor_target(argument)
            if owner is None:
                return None
            return f"{owner}.{rest}" if rest else owner
        return target

    def _every_slot_of(self, key: str, index: set[str]) -> bool:
        """The subscript ``index`` is the target of an enclosing ``for k in key`` (or ``key.keys()``):
        the loop writes every slot of ``key``."""
        loop = self._loop_over(next(iter(index))) if len(index) == 1 else None
        if loop is None:
            return False
        iterated = loop.iter
        if type(iterated) is cst.Call and type(iterated.func) is cst.Attribute and iterated.func.attr.value == "keys" and not iterated.args:
            iterated = iterated.func.value
        return dotted(iterated) == key

    def _carried_by_an_element(self, node: cst.Call, key: str, effect: Effect, callee: Optional[Function]) -> Optional[str]:
        """A state one object of a container carries from what it computes itself (an EMA
        callback among ``self.callbacks``, ``cb.on_step_end(self)``): the container holds that
        object, so it holds the state from call to call (``key``, the container as the call names
        it); None for anything else (one meter's reset resets no other)."""
        if callee is None or effect.value.params or type(node.func) is not cst.Attribute:
            return None
        element = dotted(node.func.value)
        container = self._iterated_container(element) if element is not None else None
        return key if container is not None and (key == container or key.startswith(container + ".")) else None

    def _iterated_container(self, name: str) -> Optional[str]:
        """``self.callbacks`` when ``name`` is the target of an enclosing ``for name in
        self.callbacks`` over a container the function does not build in that loop."""
        iterated = self._loop_iterable(name)
        # (``for cb in callbacks`` over a parameter: the caller's list outlives the loop; so does
        # a list built before the batch loop, ``metrics = [PSNR(), MAE()]``)
        if iterated is None:
            return None
        if iterated.startswith("self.") or iterated.split(".", 1)[0] in self.parameters:
            return iterated
        return iterated if any(loop.first_access.get(iterated) == "read" for loop in self.loops if loop.is_batch_loop) else None

    def _loop_iterable(self, name: str) -> Optional[str]:
        """``callbacks`` when ``name`` is the target of an enclosing ``for name in callbacks``."""
        loop = self._loop_over(name)
        return dotted(loop.iter) if loop is not None else None

    def _loop_over(self, name: str) -> Optional[cst.For]:
        """The innermost enclosing ``for name in ...``."""
        for loop in reversed(self.loops):
            node = loop.node
            if type(node) is cst.For and type(node.target) is cst.Name and node.target.value == name:
                return node
        return None

    def _note_element_owner(self, name: str, owner: Optional[str]) -> None:
        """``name`` now holds an entry of ``owner`` (when that outlives the call): what is
        written into it is written into ``owner`` (``_outside_target``); else nothing's."""
        if owner is not None and self._outside_target(owner) is not None and owner.split(".", 1)[0] != name:
            self.element_owners[name] = owner
        else:
            self.element_owners.pop(name, None)

    def _zipped_root(self, name: str) -> Optional[str]:
        """``_zipped_source`` followed through loops over what an outer loop binds
        (``for rate, params in zip(rates, self.ema_params): for targ, src in zip(params, ...)``:
        ``self.ema_params``)."""
        source = self._zipped_source(name)
        seen = {name}
        while source is not None and source not in seen and "." not in source and (outer := self._zipped_source(source)) is not None:
            seen.add(source)
            source = outer
        return source

    def _zipped_source(self, name: str) -> Optional[str]:
        """``self.shadow_params`` when ``name`` is bound by an enclosing ``for name in
        self.shadow_params``, ``for name, p in zip(self.shadow_params, ...)`` or ``for i, name in
        enumerate(self.shadow_params)``."""
        for loop in reversed(self.loops):
            node = loop.node
            if type(node) is not cst.For:
                continue
            if type(node.target) is cst.Name:
                if node.target.value == name:
                    return dotted(node.iter)
                continue
            if type(node.target) is not cst.Tuple or type(node.iter) is not cst.Call or type(node.iter.func) is not cst.Name:
                continue
            names = [element.value.value if type(element.value) is cst.Name else None for element in node.target.elements]
            if name not in names:
                continue
            position, called, args = names.index(name), node.iter.func.value, node.iter.args
            if called == "zip" and position < len(args):
                return dotted(args[position].value)
            if called == "enumerate" and position == 1 and args:
                return dotted(args[0].value)
            return None
        return None

    def _updated_tensor(self, receiver: cst.BaseExpression) -> Optional[str]:
        """The key of the tensor an in-place method updates: the root of ``buf.mul_(m)`` chains,
        or the tensor an accessor hands out (``stats.device_stat("loss")``, a tensor the stats
        object keeps)."""
        root = _chain_root(receiver, vocab.IN_PLACE_UPDATES)
        if root is None and type(receiver) is cst.Subscript:
            # ``self.queue[c].index_copy_(0, idx, keys)``: a view written in place updates the
            # tensor it is a view of (its history gains the write's graph)
            base: cst.BaseExpression = receiver
            while type(base) is cst.Subscript:
                base = base.value
            root = dotted(base)
        if root is None and type(receiver) is cst.Call:
            return self._accessor_target(receiver, keyed=True)
        if root is not None and (root == "data" or root.endswith(".data")):
            # ``self.weight.data.copy_(avg)``: ``.data`` is a view autograd does not track; the
            # tensor behind it gains no grad_fn, whatever the operand holds (measured)
            return None
        return root

    def _accessor_target(self, call: cst.Call, *, keyed: bool = False) -> Optional[str]:
        """``self.target`` for ``self._get_target()`` when that method of the file only ever
        returns ``self.target`` (a lazily built EMA copy): an effect on what it returns is an
        effect on that attribute. With ``keyed``, also ``stats._device_stats`` for
        ``stats.device_stat("loss")`` returning ``self._device_stats[name]`` (one of the tensors
        the object keeps)."""
        if type(call.func) is not cst.Attribute:
            return None
        owner = dotted(call.func.value)
        if owner is None or (owner != "self" and not keyed) or (call.args and not keyed):
            return None
        definition = self._resolve(call.func, call.args)
        if definition is None:
            return None
        returned: set[Optional[str]] = set()
        for node in own_returns(definition):
            value = node.value
            while keyed and type(value) is cst.Subscript:
                value = value.value
            returned.add(dotted(value) if value is not None else None)
        if len(returned) != 1:
            return None
        key = returned.pop()
        if key is None or not key.startswith("self."):
            return None
        return owner + key[len("self"):]

    def _apply_effects(self, node: cst.Call, summary: Summary, bound: dict[int, Value], callee: Optional[Function] = None) -> None:
        statement = self.statement
        in_container = type(node.func) is cst.Attribute and (
            (dotted(node.func.value) is None and _element_owner(node.func.value) is not None)
            or (dotted(node.func.value) is not None and self._iterated_container(dotted(node.func.value) or "") is not None)
        )
        carried_in_callee: set[str] = set()
        for effect in summary.effects:
            if effect.when_given >= 0 and _flag_off(node, summary, effect.when_given):
                continue  # ``self.computer()`` without ``track=True``: the guarded update never runs
            key = self._target_at_call(node, effect.target, summary)
            if key is not None and "." not in key and effect.kind == "carry" and effect.method in vocab.IN_PLACE_UPDATES:
                # ``update_ema(params, ...)`` in ``for rate, params in zip(rates, self.ema_params)``:
                # the list updated in place is one of ``self.ema_params``
                key = self._zipped_root(key) or key
            if key is not None and in_container and effect.kind == "carry":
                key = self._carried_by_an_element(node, key, effect, callee)
                if key is None:
                    continue
            elif key is None or (in_container and effect.kind in ("reset", "set", "carry")):
                continue  # (resetting one meter of ``self.meters`` does not reset the others)
            value = substitute(effect.value, bound)
            if self.no_grad and not effect.value.params and value.attached:
                value = value.with_state(State.DETACHED)  # what the callee computes itself, under the caller's no_grad
            origin = f" in {self.context.externals.shown(effect.origin)}" if effect.origin else ""  # another module's helper: its file and line
            via = f"{effect.where}{origin} {_VERBS.get(effect.kind, 'keeps it in')} {key}"
            outside = self._outside_target(key)
            if self.loops and effect.kind in ("accumulate", "store", "carry"):
                self.kept_in_loops.add((effect.where, key))
            if (
                outside is not None and (value.attached or value.params) and effect.kind != "reset" and not self._in_batch_loop()
                and (self.loops or (effect.where, key) not in self.kept_in_loops)
            ):
                # (inside a batch loop the effect is reported here, as ``_store`` does); a carry on
                # ``self`` keeps the helper's statement, where its fix goes (``self._track(m, v)``)
                helper_statement = callee.effect_nodes.get(id(effect)) if callee is not None and (
                    effect.kind == "carry" or effect.kind == "accumulate" and decays_itself(callee.effect_nodes.get(id(effect)), effect.target)
                    and not _averages_several(callee.summary)  # (then the call that hands it the graphs is the one fix)
                ) else None
                kind = effect.kind
                if (
                    kind == "accumulate" and effect.method == DECAYING_SUM and effect.value.params and value.attached
                ):
                    # a moving average of what this function gives the helper: the state it
                    # carries, wherever this function is called from
                    kind = "carry"
                # (a key given by this function's caller, or not: the positions were the callee's)
                stored = self._callee_store(callee, effect) if callee is not None and effect.kind == "store" else None
                positions = _store_positions(callee, stored, effect)
                keyed = (-1,) if positions and keyed_per_call(node, summary, positions) else ()
                through_self = method_on_self(node.func) is not None
                self._effect(replace(effect, kind=kind, target=outside, value=value, keyed=keyed, through_self=through_self), helper_statement)
            elif outside is not None and effect.kind == "reset":
                self._effect(replace(effect, target=outside))
            for prefix in key_prefixes(key):
                self._read(prefix)
            if effect.kind == "reset" and _resets_on_some_calls(summary, effect):
                # (what it keeps survives most calls: as a reset in a branch of the caller's loop)
                self.branch_depth += 1
                self._binding(statement, key, DETACHED, set(), via=via)
                self.branch_depth -= 1
                continue
            if effect.kind == "reset":
                self.env[key] = value
                self._binding(statement, key, DETACHED, set(), via=via)
                if self.function.cls is not None and self.function.name.endswith(".__init__") and key.startswith("self.") and key.count(".") == 1:
                    # ``self.reset_queue()`` in ``__init__`` builds the attribute: what it holds
                    # (a zero tensor, whose slots keep every version written into them)
                    self.context.facts.attributes.setdefault((self.function.cls, key[len("self."):]), replace(value, params=frozenset()))
                owner = key.rsplit(".", 1)[0]
                held = self.env.get(owner)
                cls = held.cls if held is not None and held.kind is Kind.INSTANCE else self.context.owner.get(id(callee.node)) if callee is not None else None
                if "." not in owner and owner != "self" and held is not None and held.kind in (Kind.INSTANCE, Kind.UNKNOWN) and cls is not None and not _holds_other_graphs(
                    self.context, cls, summary, effect.target
                ):
                    # ``dec_state.detach()`` replacing the state object's only attached attribute:
                    # the object carries no graph into the next turn
                    self._binding(statement, owner, held.with_state(State.DETACHED), set(), via=via)
                continue
            if not value.attached:
                continue
            self._locate(node)
            argument = self._argument_node(node, summary, effect.value, bound) or node
            if effect.kind == "set":
                # The object now holds the value; when the value came out of a forward that was
                # given the object (``state.update_state(*decoder(x, state)[1:])``), the object
                # carries the graph into the next iteration.
                owner = key.rsplit(".", 1)[0]  # (``self.meter`` of ``self.meter.avg``: not all of ``self``)
                if any(name == owner or name.startswith(owner + ".") for name in self._fed_from(argument)) or (
                    # (or what it is given was cut from the state itself this iteration:
                    # ``noise_batch = self.global_noise_data[:n]``, then ``self._update_noise(noise_batch)``)
                    self.loops and key in self.function.sources_of(data_mentions(argument), data_only=True)
                ):
                    self._binding(statement, key, value, mentions(node), fed=True, via=via)
                elif effect.value.attached:
                    # (what the method computed and left on the object is new at every call:
                    # ``model.loss_G_A`` after ``model.optimize_parameters()``)
                    self._binding(statement, key, value, mentions(node), via=via)
                self.env[key] = value
                continue
            fixed_in_callee = bool(effect.value.params) and self._fix_goes_in_callee(node, callee, effect)
            inner = self._callee_store(callee, effect) if not effect.value.params or fixed_in_callee else None
            if effect.kind == "store" and inner is None and callee is not None and fixed_in_callee and (
                handed_on := callee_hands_on_what_it_computes(callee, effect)
            ) is not None:
                # (what the helper computes from what it is given and hands to a keeper:
                # ``self.metrics.add("log_odds_ratio", torch.mean(ratio))``, fixed there)
                hands_at, hands_with, handed = handed_on
                inner = Store(hands_at, 0, None, callee, hands_with.func, effect.target, effect.method or "store", handed, effect.value, frozenset({"<call>"}))
            if effect.kind == "store" and inner is not None and callee is not None:
                # The callee computes what it stores (``buffer.logprobs.append(dist.log_prob(a))``):
                # report it there, where ``no_grad`` or ``.detach()`` goes.
                if effect.value.params:
                    # what it is given, kept by the helper: name the loop that gives it
                    via = f"{callee.name} is given it by {self.function.name} every iteration"
                given = self.values.get(id(argument), value)
                self.function.stores.append(
                    Store(inner.node, self.context.next_seq(), self.loop, self.function, inner.container, key, inner.method,
                          inner.value_node, value, frozenset({"<call>"}) | keyed_per_call(node, summary, _store_positions(callee, inner, effect)), via, inner.in_callee or callee.name,
                          given=bool(effect.value.params),
                          given_several=stores_the_parameter(callee, inner.value_node)
                          and (isinstance(argument, (cst.List, cst.Tuple, cst.Dict, cst.Set)) or given.kind in (Kind.CONTAINER, Kind.TUPLE)))
                )
                top = self.context.def_tops.get(id(callee.node))
                if top is not None:
                    self.context.facts.top_of.setdefault(id(inner.node), top)
            elif effect.kind in ("accumulate", "store") and self._in_batch_loop() and (fanned := self._fanned_out(callee, effect)) is not None:
                # The callee hands each entry of what it is given on, in a loop, to a helper that
                # keeps it (``for k, v in losses.items(): logger.logkv_mean(k, v.mean())``): the
                # fix is at that call, per entry; the caller passes a dict it cannot ``.item()``.
                statement, handing, operand = fanned
                self._locate(statement)
                assert callee is not None  # (``_fanned_out`` found the statement in it)
                self.context.facts.top_of[id(statement)] = self.context.def_tops.get(id(callee.node), statement)
                if effect.kind == "accumulate":
                    self.function.accumulations.append(Accumulation(
                        statement, self.context.next_seq(), self.loop, self.function, handing.func, key, "+=", operand, value, via,
                        in_callee=callee.name,
                    ))
                else:
                    self.function.stores.append(Store(
                        statement, self.context.next_seq(), self.loop, self.function, handing.func, key, effect.method or "store",
                        operand, value, frozenset({"<call>"}), via, callee.name, given=True,
                    ))
            elif effect.kind == "store":
                returned = bool(effect.value.params & summary.returns.params - {0})
                stored = self._callee_store(callee, effect) if callee is not None else None
                index = frozenset({"<call>"}) | keyed_per_call(node, summary, _store_positions(callee, stored, effect))
                self.function.stores.append(
                    Store(node, self.context.next_seq(), self.loop, self.function, node.func, key, effect.method or "store", argument,
                          value, index, via, argument_returned=returned, helper=_fixed_in_imported(summary, effect, callee),
                          kept_by=_kept_by(effect, callee))
                )
            elif effect.kind == "accumulate" and effect.method == DECAYING_SUM and effect.value.params:
                # ``self.center = self.center * m + batch_center * (1 - m)`` in a helper given a
                # model's output (or a loss): a moving average carried into the next call, fixed
                # at this call, which can pass a number or a detached tensor (the authors of 4 of
                # 5 such blind cases marked the call, not the helper's average)
                self._read(key)  # (the average reads its previous value before replacing it)
                average = callee.effect_nodes.get(id(effect)) if callee is not None else None
                if average is None or callee is None or _averages_what_it_is_given(average, effect.target, callee):
                    self._binding(
                        self.statement, key, value, mentions(node), fed=True, via=via, in_callee=effect.where,
                        helper=_fixed_in_imported(summary, effect, callee),
                    )
                else:
                    # (it averages a loss it computes itself: fixed there, ``0.02 * loss.item()``)
                    self._binding(average, key, value, mentions(node), fed=True, via=via, in_callee=effect.where or callee.name)
                    top = self.context.def_tops.get(id(callee.node))
                    if top is not None:
                        self.context.facts.top_of[id(average)] = top
                self.env[key] = value
            elif effect.kind == "accumulate":
                inner_sum = self._callee_accumulation(callee, effect) if not effect.value.params else None
                if inner_sum is None and effect.value.params and self._fix_goes_in_callee(node, callee, effect):
                    inner_sum = callee_sum_of_argument(callee, effect)
                    if inner_sum is None and callee is not None and (handed_on := callee_hands_on_what_it_computes(callee, effect)) is not None:
                        hands_at, hands_with, handed = handed_on
                        inner_sum = Accumulation(hands_at, 0, None, callee, hands_with.func, effect.target, effect.method or "+=", handed, effect.value)
                if inner_sum is not None and callee is not None:
                    # The callee sums what it computes itself (``self.stats["loss"] += total`` in a
                    # step method): report it there, where ``.item()`` goes.
                    self._locate(inner_sum.node)
                    self.function.accumulations.append(replace(
                        inner_sum, seq=self.context.next_seq(), loop=self.loop, function=self.function, key=key, value=value, via=via,
                        in_callee=callee.name if effect.value.params else inner_sum.in_callee,
                    ))
                    top = self.context.def_tops.get(id(callee.node))
                    if top is not None:
                        self.context.facts.top_of.setdefault(id(inner_sum.node), top)
                else:
                    self._accumulation(
                        node, node.func, key, effect.method or "+=", argument, value, via, _fixed_in_imported(summary, effect, callee), _kept_by(effect, callee)
                    )
            elif effect.kind == "carry":
                where = callee.effect_nodes.get(id(effect)) if callee is not None else None
                if (effect.method in vocab.IN_PLACE_UPDATES or effect.target.startswith("self.")) and where is not None and callee is not None:
                    # ``ema_p.mul_(a).add_(p)`` in a helper, or a method rebinding its object's
                    # state (``self.past = out.past_key_values``): the fix goes in the helper, at
                    # each update that mixes in a graph, not at one that only rescales what an
                    # earlier one carried (``self.alpha = self.alpha / self.alpha.sum()``)
                    if effect.target in carried_in_callee and _only_rescales(where, effect.target, self.context.aliases):
                        self.env[key] = value
                        continue
                    if value.attached:
                        carried_in_callee.add(effect.target)
                    # (updated in place: its new value is computed from its old one)
                    updated = {key} if effect.method in vocab.IN_PLACE_UPDATES else set()
                    self._binding(where, key, value, mentions(node) | updated, fed=True, via=via, in_callee=effect.where or callee.name)
                    top = self.context.def_tops.get(id(callee.node))
                    if top is not None:
                        self.context.facts.top_of[id(where)] = top
                elif not (callee is None and effect.in_batch_loop and not effect.value.params):
                    # (another module's helper carrying what it computes inside its own batch
                    # loop reports it there: ``agent.update()`` is not a second place to fix it)
                    self._binding(
                        statement, key, value, mentions(node), fed=True, via=via, helper=_fixed_in_imported(summary, effect, callee),
                        retained_in=summary.key if callee is None and summary.module and summary.retains and effect.kind == "carry" else "",
                        # (updated in place by another module's helper, a module's weights among
                        # them: nothing to detach here, the fix is no_grad in that helper)
                        in_callee=effect.where if callee is None and effect.method in vocab.IN_PLACE_UPDATES else "",
                    )
                self.env[key] = value

    def _transfer_attribute_flows(self, node: cst.Call, summary: Summary) -> None:
        """What a method computes from one attribute of its object into another (``self.hx`` into
        ``self.log_probs``) flows between the caller's names for them (``agent.hx`` into
        ``agent.log_probs``): a backward of the one reaches the other."""
        for source, target, data in summary.attribute_flows:
            here = self._target_at_call(node, source, summary)
            there = self._target_at_call(node, target, summary)
            if here is None or there is None or here == there:
                continue
            self.function.flows_to.setdefault(here, set()).add(there)
            if data:
                self.function.data_flows_to.setdefault(here, set()).add(there)

    def _fanned_out(self, callee: Optional[Function], effect: Effect) -> Optional[tuple[cst.CSTNode, cst.Call, cst.BaseExpression]]:
        """The callee's statement, in a loop over a parameter whose entries it keeps through a
        further helper (``logger.logkv_mean(key, values.mean())`` in ``for key, values in
        losses.items()``), that call and its argument computed from the entry; None when the
        effect is not kept so."""
        if callee is None or type(callee.node) is not cst.FunctionDef or effect.where == callee.name or not effect.value.params:
            return None
        statement = callee.effect_nodes.get(id(effect))
        if statement is None:
            return None
        parameters = {name.lstrip("*") for index, name in enumerate(callee.summary.parameters) if index in effect.value.params}
        for loop in iter_statements(_body(callee.node.body)):
            if type(loop) is not cst.For or not (mentions(loop.iter) & parameters):
                continue
            inside = {id(node) for node in subtree(loop)}
            if id(statement) not in inside:
                continue
            entries = {node.value for node in subtree(loop.target) if type(node) is cst.Name}
            # (the call the statement is: ``self.by_split.setdefault(s, {}).update(v)``'s ``update``)
            small = statement.body[0] if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 else statement
            call = small.value if type(small) is cst.Expr else None
            if type(call) is not cst.Call:
                return None
            given = [arg.value for arg in call.args if data_mentions(arg.value) & entries]
            return (statement, call, given[-1]) if given else None
        return None

    def _callee_accumulation(self, callee: Optional[Function], effect: Effect) -> Optional[Accumulation]:
        """The callee's own ``+=`` behind one of its accumulate effects; for one passed up from a
        deeper helper of the file (``Mean.update`` under ``criterion.__call__``), that helper's
        own ``+=`` when it has only one."""
        if callee is None:
            return None
        if effect.where != callee.name:
            # the callee's own call of the deeper helper, where what it computes is given away
            # (``meters["loss"].update(loss)`` in a per-batch ``train_step``)
            where = callee.effect_nodes.get(id(effect))
            inside = {id(node) for node in subtree(where)} if where is not None else set()
            given = next((event for event in callee.accumulations if id(event.node) in inside), None)
            if given is None:
                # (or the deeper helper's own sum that the callee's call of it was reported at:
                # ``self.total_loss_epoch += loss`` in ``_update_loss_stats``, called by ``step``)
                given = next((event for event in callee.accumulations if event.in_callee == effect.where and event.key == effect.target), None)
            if given is not None:
                return given
            deeper = [function for function in self.context.facts.functions if function.name == effect.where]
            own = [event for function in deeper for event in function.accumulations if not event.via] if len(deeper) == 1 else []
            return own[0] if len(own) == 1 else None
        where = callee.effect_nodes.get(id(effect))
        return next((event for event in callee.accumulations if event.node is where and not event.via), None)

    def _fix_goes_in_callee(self, node: cst.Call, callee: Optional[Function], effect: Effect) -> bool:
        """A helper storing what it is given: the fix goes in the helper, not at this call, when
        the call dispatches on an object of a container (``for cb in self.callbacks:
        cb.on_batch_end(outputs)``), which its caller cannot change per object, or when this is
        the helper's only call and it keeps what it is given in one place
        (``self.history.append(value)``, ``logs["z"].append(z[::10])``): every call leaks, so
        the helper's line is the one fix. A helper called from several places (``tracker.log("loss",
        loss)`` beside ``tracker.log("step", step)``), or keeping the argument in several places,
        is fixed at the call that passes the graph."""
        if callee is None or type(self.function.node) is not cst.FunctionDef:
            return False
        if effect.per_entry and effect.where == callee.name:
            # (each entry of a dict it is given, kept one by one: fixed there, per entry, unless
            # another call gives it plain numbers, which a ``.item()`` there would break)
            return not self._given_numbers(callee, effect)
        if self.context.callers_of(callee.name) != {self.function.name} or callee.name in self.context.externals.called_with_grad_by_importers:
            return False
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and any(func.value.value in loop.loop_targets for loop in self.loops):
            return True
        if self._dispatched_over_classes(node):
            return True
        # Called from one place, keeping what it is given in one place: every call leaks, and the
        # fix is that one line of the helper (where authors of held-out cases marked it, 9 times
        # of 9, when the choice was theirs).
        calls = sum(1 for called, _ in self.context.evidence.call_nodes if called == callee.name)
        if calls != 1:
            return False
        # (a method of the same object, ``self._accumulate_epoch_loss(loss, bs)``, is fixed where it
        # sums what carries a graph; another object's meter, ``meter.update(loss, n)``, at the call)
        graphs = self._positions_given_graphs(node, callee.summary) if method_on_self(func) is not None and not effect.value.attached else None
        return fixed_at_its_line(callee.summary, effect, graphs)

    def _positions_given_graphs(self, node: cst.Call, summary: Summary) -> Optional[frozenset[int]]:
        """The parameter positions this call gives an attached value (positional and keyword
        arguments, ``self`` counted); None when a star argument hides them."""
        if any(arg.star for arg in node.args):
            return None
        return frozenset(
            index for index in range(len(summary.parameters))
            if (given := argument_at(node, summary, index)) is not None and self.values.get(id(given), UNKNOWN).attached
        )

    def _given_numbers(self, callee: Function, effect: Effect) -> bool:
        """Some call of ``callee`` in the file passes, where ``effect`` keeps entries, a dict
        literal holding a plain number (``update_running(running, {"lr": 0.1})``)."""
        calls = self.context.call_nodes_by_id()
        for called, call_id in self.context.evidence.call_nodes:
            call = calls.get(call_id)
            if called != callee.name or call is None:
                continue
            for index in effect.value.params:
                given = argument_at(call, callee.summary, index)
                if type(given) is cst.Dict and any(
                    type(element) is cst.DictElement and _plain_number(element.value) for element in given.elements
                ):
                    return True
        return False

    def _dispatched_over_classes(self, node: cst.Call) -> bool:
        """The call runs a method that several classes of the file implement, on an object whose
        class the file does not show (``metric.process(state)`` over a list of metrics): the
        caller cannot change what each one keeps; the fix goes in the one that keeps it."""
        func = node.func
        return type(func) is cst.Attribute and self.values.get(id(func.value), UNKNOWN).cls is None and sum(
            1 for candidate in self.context.methods_named(func.attr.value) if not _is_stub(candidate)
        ) > 1

    def _callee_store(self, callee: Optional[Function], effect: Effect) -> Optional[Store]:
        """The store event of ``callee`` behind one of its store effects."""
        if callee is None or effect.kind != "store":
            return None
        if effect.where != callee.name:
            # Passed up from a deeper helper: the store that helper made, as the callee saw it,
            # or the callee's own call handing that helper what it computed
            # (``self.create_summary("loss", self.loss)`` under ``writer.add_scalar``).
            return next((store for store in callee.stores if store.in_callee == effect.where), None) or next(
                (store for store in callee.stores if store.key == effect.target and not store.in_callee and "<call>" in store.index_mentions), None
            ) or next(
                # (located by the callee further down: ``_after_training_iteration`` handing
                # ``self.mb_output`` to the buffer's ``add_data``, its statement the fix)
                (store for store in callee.stores if store.key == effect.target and store.in_callee and store.method == effect.method), None
            )
        where = callee.effect_nodes.get(id(effect))
        inside = {id(node) for node in subtree(where)} if where is not None else set()
        return next(
            (store for store in callee.stores if not store.in_callee and (id(store.node) in inside or store.node is where)),
            callee.effect_stores.get(id(effect)),
        )

    def _deeper_store(self, effect: Effect) -> Optional[Store]:
        """The statement of the method of the file a forward's store effect comes from
        (``self.add_to_memory(embeddings, ...)`` writing ``self.embedding_memory[idx] =
        embeddings``), where the one fix goes; None when it is not one of the file's."""
        if effect.kind != "store":
            return None
        deeper = next((function for function in self.context.walked.values() if function.name == effect.where), None)
        if deeper is None:
            return None
        own = next((candidate for candidate in deeper.summary.effects if (candidate.kind, candidate.target, candidate.where) == (effect.kind, effect.target, deeper.name)), None)
        return deeper.effect_stores.get(id(own)) if own is not None else None

    def _argument_node(
        self, node: cst.Call, summary: Summary, value: Value, bound: dict[int, Value]
    ) -> Optional[cst.BaseExpression]:
        """The argument of the call whose attachment an effect's value inherits (``loss`` in
        ``meter.update(loss, n)``), for messages and fixes."""
        names = list(summary.parameters)
        offset = 1 if _binds_self(node, summary) else 0
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        star_index, keywords_index = _star_positions(names)
        for index in sorted(value.params):
            if not bound.get(index, UNKNOWN).attached:
                continue
            if index == keywords_index or index == star_index:
                # the first argument that ``**kwargs`` (``*args``) collects and that holds a graph
                if index == keywords_index:
                    collected = [arg.value for arg in node.args if arg.star == "**" or (arg.keyword is not None and not arg.star and arg.keyword.value not in names)]
                else:
                    collected = positional[max(index - offset, 0):] + [arg.value for arg in node.args if arg.star == "*"]
                return next((candidate for candidate in collected if self.values.get(id(candidate), UNKNOWN).attached), collected[0] if collected else None)
            argument = argument_at(node, summary, index)
            if argument is not None:
                return argument
        return None

    def _resolve_callable(self, node: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The function a callable expression denotes: a function of the file, or the nested
        function a factory of the file returns (``register_forward_hook(save_output(name))``)."""
        if type(node) is not cst.Call:
            return self._resolve(node)
        factory = self._resolve(node.func)
        if factory is None:
            return None
        nested = {s.name.value: s for s in _body(factory.body) if type(s) is cst.FunctionDef}
        for statement in iter_statements(_body(factory.body)):
            if type(statement) is cst.Return and type(statement.value) is cst.Name:
                return nested.get(statement.value.value)
        return None

    def _lambda_hook(self, hook: cst.Lambda) -> None:
        """``register_forward_hook(lambda m, inp, out: feats.append(out))``: the container the
        lambda stores the module's output (or input) in, as a hook function's store."""
        body = hook.body
        if type(body) is not cst.Call or type(body.func) is not cst.Attribute or body.func.attr.value not in vocab.STORING_METHODS:
            return
        key = target_key(body.func.value)
        parameters = [param.name.value for param in hook.params.params]
        if key is None or key.split(".", 1)[0] in parameters or not body.args:
            return
        stored = body.args[-1].value
        # what is stored, as a function of the lambda's parameters (``out.detach()`` and
        # ``out.shape`` depend on none of them as a graph)
        saved = {name: self.env.get(name) for name in parameters}
        self.env.update({name: parameter(index) for index, name in enumerate(parameters)})
        try:
            value = self.evaluate(stored)
        finally:
            for name, previous in saved.items():
                if previous is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = previous
        if value.params and not value.detached:
            effect = Effect("store", key, Value(State.UNKNOWN, params=value.params), "lambda", body.func.attr.value)
            self.context.hooks.append((effect, "lambda", len(parameters), body))

    def _apply_hook(self, effect: Effect, hook: str, parameters: int, store_node: cst.CSTNode) -> None:
        """A forward hook's store runs on every forward pass of the hooked module: report it
        where the hook stores, in the loop that runs the forward passes."""
        value = substitute(effect.value, {i: ATTACHED for i in range(parameters)})
        if not value.attached or effect.target.startswith("self.") or argument_position(effect.target) is not None:
            return
        key = effect.target
        for prefix in key_prefixes(key):
            self._read(prefix)
        # (a lambda's store names what it keeps: ``feats.append(o)``)
        stored = store_node.args[-1].value if type(store_node) is cst.Call and store_node.args else cst.Name("output")
        self.function.stores.append(
            Store(store_node, self.context.next_seq(), self.loop, self.function, cst.parse_expression(key), key,
                  effect.method or "append", stored, value, frozenset({"<call>"}), f"forward hook {hook}")
        )
        held = self._lookup(key)
        self.env[key] = replace(held, state=State.ATTACHED) if held.kind is Kind.CONTAINER else Value(State.ATTACHED, Kind.CONTAINER)

    def _is_loss_call(self, key: Optional[str], identifier: str, name: str) -> bool:
        return (
            bool(vocab.LOSS_NAME.match(identifier))
            or bool(vocab.FUNCTIONAL_LOSS.match(name))
            or identifier in self.context.settings.loss_names
        )

    def _is_model_call(self, func: cst.BaseExpression, key: Optional[str], identifier: str) -> bool:
        """Name fallback, used only where the file shows nothing about the callee."""
        if key == "self":
            return True  # a module calling its own forward, as Lightning's training_step does
        if self._is_evident_module(key):
            return True
        if identifier in self.context.settings.model_names:
            return True
        if key is not None and self._lookup(key).kind is not Kind.UNKNOWN:
            return False  # the file says what it is, and it is not a module
        if key is not None and key in self.method_references:
            return False  # ``item_generator = obj.items``: a bound method, whatever it is called
        if key is not None and key.startswith("self.") and key.count(".") == 1 and self.function.cls is not None and self.context.holds_a_bound_method(self.function.cls, key[len("self."):]):
            return False  # ``self.policy_fn = policy_value_function``, given ``net.policy_value_fn``
        if not vocab.MODEL_NAME.match(identifier):
            return False
        if identifier[:1].isupper() and not identifier.isupper():
            return False  # ``EncoderDecoderCache(...)``, ``Decoder(cfg)``: a class being built, not a forward
        if type(func) is cst.Attribute:
            # ``self.encoder(x)`` and ``model.backbone(x)`` are submodules; ``cfg.model(...)`` is not.
            owner = dotted(func.value)
            return owner is not None and (
                owner == "self" or self._lookup(owner).kind is Kind.MODULE or bool(vocab.MODEL_NAME.match(owner.rsplit(".", 1)[-1]))
            )
        return True

    def _loss_value(self, positional: list[Value], arguments: list[Value]) -> Value:
        """A loss of graph-attached predictions is attached; of unknown ones, assumed attached."""
        attached = combine(*arguments) if arguments else UNKNOWN
        if attached.attached:
            return tensor(State.ATTACHED, double_backward=attached.double_backward)
        if any(argument.kind is Kind.MODULE for argument in arguments):
            return Value(State.ATTACHED)  # ``criterion(model, sample)`` (fairseq, Uni-Core): runs the model; a tuple or a tensor
        if positional and positional[0].detached:
            return DETACHED_TENSOR  # criterion(pred.detach(), y) or computed under no_grad
        params = frozenset().union(*(a.params for a in arguments)) if arguments else frozenset()
        if params:
            return Value(State.UNKNOWN, Kind.TENSOR, params=params)
        return ATTACHED

    def _becomes_leaf(self, tensor: cst.BaseExpression, enabled: bool) -> None:
        """``delta.requires_grad = True`` (or the statement ``x.requires_grad_()``) on a tensor
        the function holds: from now on it is a leaf whose results are attached (an
        adversarial perturbation, a PDE's collocation points)."""
        key = dotted(tensor)
        if key is None or not enabled:
            return
        held = self._lookup(key)
        if held.kind in (Kind.TENSOR, Kind.UNKNOWN) and held.cls is None and not held.attached and not held.is_module:
            # (a parameter keeps its identity: the caller's tensor, which the caller may hand a
            # backward as it is)
            self.env[key] = replace(held, leaf=True, kind=Kind.TENSOR) if held.params else LEAF
            if "." not in key and type(self.statement) is cst.Expr:
                # (the statement ``data.requires_grad_()``: from here the name is a leaf, as
                # ``data = data.requires_grad_()`` says; a double backward fills its ``.grad``)
                self._binding(self.statement, key, self.env[key], {key})

    def _call_events(self, node: cst.Call, receiver: Value, arguments: list[Value]) -> None:
        func = node.func
        name = self.context.aliases.qualify(func) or ""
        method = func.attr.value if type(func) is cst.Attribute else None
        receiver_key = dotted(func.value) if type(func) is cst.Attribute else None
        if method == "eval" and not node.args:
            self.function.summary.evaluates = True
        if method == "requires_grad_" and type(func) is cst.Attribute:
            owner = _chain_root(func.value, vocab.MODULE_SELF_METHODS)
            known = self._lookup(owner) if owner is not None else UNKNOWN
            if owner is not None and (known.kind in (Kind.MODULE, Kind.FUNCTION_MODULE) or self._is_evident_module(owner)):
                # ``G.requires_grad_(False)``: its parameters stop recording until it is switched back
                self.env[owner] = _with_grad_enabled(known, not any(_is_false(arg) for arg in node.args))
            elif owner is not None and owner == dotted(func.value) and type(self.statement) is cst.Expr and self.statement.value is node:
                self._becomes_leaf(func.value, not any(_is_false(arg) for arg in node.args))
        if (
            method in vocab.MODULE_EVIDENCE_METHODS and receiver_key is None and type(func) is cst.Attribute
            and type(func.value) is cst.Subscript and _literal_key(func.value, {}) is not None
        ):
            # ``models['module'].eval()``: a dict of modules (by name), as a ``ModuleDict`` is
            receiver_key = dotted(func.value.value)
        if method in vocab.MODULE_EVIDENCE_METHODS and receiver_key is not None and receiver.kind in (Kind.UNKNOWN, Kind.MODULE, Kind.INSTANCE, Kind.NONE):
            # (``self._network = None`` in a base class whose subclasses set the network, then
            # ``self._network.eval()``: a module where the base class uses it)
            if not (method == "eval" and node.args):
                # ``self.net.parameters()`` in ``__init__``: a module in every method of the class
                scope = scope_of(self.function, receiver_key) if receiver_key.startswith("self.") else self.scope
                self.context.observations.module_uses.add((scope, receiver_key))
        if name in vocab.RANDOM_DRAWS and node.args and (drawn := dotted(node.args[0].value)) is not None:
            self.context.facts.drawn_at_random.add(drawn)
        if method in vocab.BACKWARD_METHODS or name in vocab.AUTOGRAD_GRAD or name in vocab.AUTOGRAD_BACKWARD:
            self._backward(node, name, method)
        elif method == "step" and type(func) is cst.Attribute:
            owner = last_identifier(func.value) or ""
            if receiver.kind is Kind.OPTIMIZER or vocab.OPTIMIZER_NAME.match(owner) or owner.endswith("scaler"):
                self._mark_loops(step=True)
        elif method == "register_buffer" and receiver_key == "self" and self.function.cls is not None and node.args:
            literal = node.args[0].value
            if type(literal) is cst.SimpleString:
                written = _string_value(literal)
                attribute = written if isinstance(written, str) else None
                if attribute is not None:
                    self.context.facts.attributes.setdefault((self.function.cls, attribute), DETACHED_TENSOR)
        elif method in vocab.CALLBACK_REGISTRATIONS and len(node.args) >= 2 and vocab.PER_BATCH_EVENT.search(
            str(_string_value(event)) if type(event := node.args[0].value) is cst.SimpleString else event.attr.value if type(event) is cst.Attribute else ""
        ):
            # ``trainer.add_callback("on_batch_end", fn)``: run once per batch by the trainer
            callback = self._resolve_callable(node.args[1].value)
            if callback is not None:
                self.context.observations.batch_callbacks.add(id(callback))
        elif method in ("register_forward_hook",) and node.args and type(node.args[0].value) is cst.Lambda:
            self._lambda_hook(node.args[0].value)
        elif method in ("register_forward_hook",) and node.args:
            hook_node = node.args[0].value
            hook = self._resolve_callable(hook_node)
            #: A callable object of the file (``register_forward_hook(recorder)``): its ``__call__``
            #: runs on every forward, and what it keeps on ``self`` lives on that object.
            instance = self.values.get(id(hook_node), UNKNOWN)
            owner = dotted(hook_node) if instance.kind is Kind.INSTANCE and instance.cls else None
            if owner is not None:
                hook = self.context.method(instance.cls, "__call__")
            if hook is not None:
                function = self.walk_function(hook, inherited_no_grad=False)
                store_nodes = function.effect_nodes
                for effect in function.summary.effects:
                    if effect.kind == "store" and argument_position(effect.target) is None and id(effect) in store_nodes:
                        store_node = store_nodes[id(effect)]
                        if owner is not None and effect.target.startswith("self."):
                            effect = replace(effect, target=owner + effect.target[len("self"):])
                        self.context.hooks.append((effect, function.name, len(function.summary.parameters), store_node))
                if owner is None and any(effect.kind == "store" and effect.target.startswith("self.") for effect in function.summary.effects):
                    self.context.observations.forward_hooks[id(hook)] = any(
                        type(node) is cst.Attribute and node.attr.value == "training" for node in subtree(hook.body)
                    )
        elif method in vocab.STORING_METHODS and type(func) is cst.Attribute and receiver.cls is None and _list_arity(node, method) and (
            self._imported_callee(func, receiver) is None
        ):
            key = target_key(func.value)
            if key is None or self._bounded(key):
                return  # (a ``deque(maxlen=n)`` holds the last n values: what it keeps does not grow)
            for arg, value in zip(node.args, arguments):
                self._flow(mentions(arg.value), key)
                self._data_flow(arg.value, key)  # (the list holds the value: ``torch.stack(losses)`` is computed from it)
                if value.attached or value.params:
                    self._store(node, func.value, key, method, arg.value, value, frozenset({"<append>"}))
                if value.attached:
                    held = self._lookup(key)
                    # (a list of ``create_graph`` gradients holds their double-backward graphs)
                    self.env[key] = combine(held, value) if held.kind is not Kind.CONTAINER else replace(
                        held, state=State.ATTACHED, double_backward=held.double_backward or value.double_backward
                    )
                grown = _grown(self._lookup(key), method, value)
                if value.params and not value.attached and key in self.local_names and grown.kind is Kind.CONTAINER:
                    # in a summary: ``losses.append(f(preds))`` then ``torch.stack(losses).sum()``
                    # holds what the arguments' graphs give
                    grown = replace(grown, params=grown.params | value.params, state=State.UNKNOWN if grown.detached else grown.state)
                self.env[key] = grown
        elif method == "update" and type(func) is cst.Attribute and receiver.cls is None and (
            receiver.kind is Kind.CONTAINER
            # (``batch.update(all_losses)`` on a dict handed in: given a mapping, it is one)
            or receiver.kind is Kind.UNKNOWN and len(arguments) == 1 and arguments[0].keys is not None
        ):
            # ``scalars.update({f"g/{i}": v for i, v in enumerate(terms)})`` on a dict: its entries
            # now hold what the mapping (or the keywords) held
            key = target_key(func.value)
            given = combine(*arguments) if arguments else DETACHED
            if key is not None and (given.attached or given.params):
                for arg in node.args:
                    self._flow(mentions(arg.value), key)
                self._store(node, func.value, key, method, node.args[0].value, given, frozenset({"<append>"}))
                held = self._lookup(key)
                # (given what a helper computes from this function's arguments, ``losses.update(
                # self.get_loss(loss, outputs, ...))``, the dict holds what they give)
                state = State.ATTACHED if given.attached else State.UNKNOWN if held.detached else held.state
                self.env[key] = replace(held, state=state, params=held.params | given.params, elements=None, keys=None, open_tail=False)
        elif method in vocab.IN_PLACE_UPDATES and type(func) is cst.Attribute and (updated := self._updated_tensor(func.value)) is not None:
            receiver_key = self.parameter_owners.get(updated, updated)
            operand = combine(*arguments) if arguments else DETACHED
            if any(argument.leaf and argument.kind in (Kind.TENSOR, Kind.UNKNOWN) for argument in arguments) and not operand.attached:
                # ``targ.mul_(r).add_(src, alpha=1 - r)`` with ``src`` a parameter: the target now
                # records a graph of it (an EMA of weights updated outside no_grad)
                operand = replace(operand, state=State.ATTACHED)
            if (operand.attached or operand.params) and not self.no_grad:
                summed = method in ("add_", "sub_") and (_chain_root(func.value, frozenset()) is not None or type(func.value) is cst.Call and not (
                    type(func.value.func) is cst.Attribute and func.value.func.attr.value in vocab.IN_PLACE_UPDATES
                )) and len(node.args) >= 1 and not any(updated in data_mentions(arg.value) for arg in node.args)
                # (``s.sub_(k * (s - p))`` takes its own value in: a moving average, not a sum)
                if summed and operand.attached:
                    # ``total.add_(loss)`` is ``total += loss``: attached values summed into a
                    # tensor kept across iterations (a decay first, ``.mul_(m).add_(x)``, is a
                    # moving average: a carried state)
                    self._accumulation(self.statement, func.value, receiver_key, "+=", node.args[0].value, operand)
                    self.env[receiver_key] = ATTACHED
                    return
                # (an element of a list the loop walks, ``for targ, src in zip(ema, params)``: the
                # list holds the state)
                source = self._zipped_root(receiver_key)
                # ``self.running_mean.mul_(m).add_(x.mean(0))``: a buffer updated from the graph
                if operand.attached:
                    zipped = source if receiver_key == updated and "." not in updated else None
                    self._binding(self.statement, zipped or receiver_key, ATTACHED, mentions(node) | ({zipped} if zipped else set()), fed=True)
                    self.env[receiver_key] = ATTACHED
                else:  # in a summary: the tensor now depends on the argument
                    self.env[receiver_key] = combine(self._lookup(receiver_key), operand)
                outside = self._outside_target(receiver_key)
                if outside is None and source is not None:
                    # ``for s, p in zip(self.shadow_params, parameters): s.sub_(d * (s - p))``:
                    # each element updated in place is the object's state
                    outside = self._outside_target(source)
                if outside is not None:
                    self._effect(Effect("carry", outside, operand, self.function.name, method))
        elif method in ("zero_", "fill_") and type(func) is cst.Attribute and (key := dotted(func.value)) is not None and key.startswith("self."):
            # ``self.v_mem.zero_()`` in a reset method: new values, the same autograd history
            self._binding(node, key, DETACHED, set(), keeps_history=True)
        elif method in ("detach_", "clear") and type(func) is cst.Attribute and not (
            # (``v.clear()`` over ``self.values()`` of meters whose class defines ``clear``: that
            # method runs, which may empty a window and keep the running sum)
            method == "clear" and receiver.kind in (Kind.UNKNOWN, Kind.INSTANCE) and self.context.methods_named(method)
        ):
            # ``hidden[0].detach_()``; ``self.v_mem.zero_().detach_()``
            key = (target_key(func.value) or _chain_root(func.value, _ZEROING)) if method == "detach_" else dotted(func.value)
            if key is not None and method == "detach_" and key.endswith(".grad"):
                # ``p.grad.detach_()`` (then ``zero_()``): what torch's own ``zero_grad`` does, a reset
                self.function.grad_resets.append(GradReset(node, self.context.next_seq(), self.loop, self.function, key[: -len(".grad")]))
            if key is not None:
                self.env[key] = DETACHED
                self._binding(node, key, DETACHED, set())
                outside = self._outside_target(key)
                if outside is not None:
                    self._effect(Effect("reset", outside, DETACHED, self.function.name, method))
        elif method in vocab.GRAD_RESET_METHODS and not (receiver.cls is not None and self.context.method(receiver.cls, method) is not None):
            # set_to_none=False zeroes in place: a reset too (measured: torch detaches the grad
            # first); an optimizer class of the file with its own ``zero_grad`` resets what its body
            # resets (``p.grad.zero_()`` alone keeps the graph on ``.grad``)
            self.function.grad_resets.append(GradReset(node, self.context.next_seq(), self.loop, self.function))
        elif _is_logging(node) or name in ("print",):
            for arg in node.args:
                self._number_read(arg.value)

    def _backward(self, node: cst.Call, name: str, method: Optional[str]) -> None:
        func = node.func
        positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
        if name in vocab.AUTOGRAD_GRAD:
            kind = "grad"
            outputs: Optional[cst.CSTNode] = (keyword(node, "outputs") or (positional[0] if positional else None))
        elif name in vocab.AUTOGRAD_BACKWARD:
            kind = "autograd.backward"
            outputs = keyword(node, "tensors") or (positional[0] if positional else None)
        else:
            kind = "backward"
            assert type(func) is cst.Attribute
            # accelerator.backward(loss) and self.manual_backward(loss) name the tensor as an argument
            owner_is_tensor = self.values.get(id(func.value), UNKNOWN).attached or not positional
            outputs = func.value if owner_is_tensor else positional[0]
        # (``(loss / len(batches)).backward()`` differentiates nothing of ``batches``)
        output_mentions = frozenset(self._graph_sources(outputs)) if outputs is not None else frozenset()
        if outputs is not None:
            roots = _backward_roots(outputs, self.context.aliases)
            for key in data_mentions(outputs) & output_mentions:
                self.context.observations.backward_keys.append((self.function, key, self._loop_id(), key in roots))
        create_graph = keyword(node, "create_graph")
        creates = self._flag(create_graph)
        event = BackwardCall(
            node,
            self.context.next_seq(),
            self.loop,
            self.function,
            kind,
            frozenset(self._graph_sources(node)),
            output_mentions,
            keyword(node, "retain_graph") if self._flag(keyword(node, "retain_graph")) else None,
            # (a backward's switch that only some paths of the file set True counts: TLK302 says so)
            create_graph if creates or (creates is None and kind == "backward" and self._may_be_true(create_graph)) else None,
            self.statement,
            create_graph_maybe=create_graph is not None and creates is None,
        )
        self._locate(node, event.retain_graph, event.create_graph)
        self.function.backwards.append(event)
        self.function.backward_mentions.update(event.mentions)
        self._mark_loops(backward=True)
        if kind == "grad" and event.create_graph is not None:
            self.function.double_backward_grads.append(event)


_VERBS = {"store": "stores it in", "accumulate": "adds it to", "carry": "carries it in", "set": "sets it as"}

#: Tensor methods that keep a value a tensor (evidence the receiver is data, not a module).
#: Methods whose result carries none of the receiver's graph.
_CUTTING_METHODS = frozenset({"detach", "item", "tolist", "numpy"})
_TENSOR_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "view", "reshape", "permute", "transpose",
     "squeeze", "unsqueeze", "contiguous", "flatten", "sum", "mean", "max", "min", "clone",
     "expand", "repeat", "split", "chunk", "softmax", "log_softmax", "sigmoid", "tanh", "exp",
     "log", "abs", "pow", "norm", "type_as", "masked_fill", "gather", "index_select", "t",
     # (elementwise and reducing ones whose names no module or helper takes: ``grad.sign()`` in
     # a PGD step is not a model because its result reaches the next forward)
     "sign", "clamp", "sqrt", "rsqrt", "neg", "square", "reciprocal", "cumsum", "prod", "std", "var",
     "argmax", "argmin", "topk", "flip", "roll", "narrow"}
)
#: Method names too common to resolve by name alone to the one class of the file defining them.
_COMMON_METHODS = frozenset(
    {"step", "zero_grad", "backward", "forward", "train", "eval", "to", "cuda", "cpu", "item",
     "append", "extend", "add", "get", "items", "keys", "values", "pop", "clear", "copy", "sum",
     "mean", "view", "reshape", "save", "load", "run", "call", "update_parameters", "state_dict",
     "load_state_dict", "parameters", "named_parameters", "close", "log", "write", "read", "reset"}
)
_NUMBER_BUILTINS = frozenset({"float", "int", "bool", "len", "str", "repr", "round", "isinstance", "hash", "id", "format"})


#: Calls that give (values, indices): the values keep the graph, the indices never carry one.
_VALUES_AND_INDICES = frozenset({"topk", "sort", "kthvalue", "mode", "cummax", "cummin", "max", "min", "median", "nanmedian"})
#: The named fields of their results (``torch.return_types``): position in the tuple.
_VALUES_INDICES_FIELDS = {"values": 0, "indices": 1}


def _backwarded_parameters(function: Function) -> frozenset[int]:
    """Positions of the parameters whose values may reach a backward the function runs: not
    one it first rebinds to a value without graph (``_parameters_cut_on_entry``), nor one none
    of what it differentiates comes from (a list it only appends its outputs to, ``step(model,
    batch, all_logits)``, or a meter it updates)."""
    cut = _parameters_cut_on_entry(function)
    reaching = function.sources_of(function.backward_mentions) | function.backward_mentions
    found: set[int] = set()
    for index, written in enumerate(function.summary.parameters):
        name = written.lstrip("*")
        used = written.startswith("*") or any(key == name or key.startswith(name + ".") for key in reaching)
        if index not in cut and used:
            found.add(index)
    return frozenset(found)


def _parameters_cut_on_entry(callee: Function) -> set[int]:
    """Positions of the parameters a function rebinds, before any other use and outside any
    branch or loop, to a value that holds no graph of the argument (``positions =
    positions.detach().requires_grad_(True)``)."""
    cut: set[int] = set()
    for index, name in enumerate(callee.summary.parameters):
        first_use = next((b for b in callee.bindings if b.key == name or name in b.mentions), None)
        if first_use is None or first_use.key != name or first_use.loop is not None or first_use.branch_depth:
            continue
        if any(call.seq < first_use.seq for call in callee.backwards):
            continue  # differentiated before it is replaced
        if not first_use.value.attached and index not in first_use.value.params:
            cut.add(index)
    return cut


def _tuple_result(method: str, tensor_value: Value, with_dim: bool) -> Optional[Value]:
    """What a tensor method (or ``torch.`` function) that gives several tensors gives, else None."""
    if method in vocab.TUPLE_WITH_DIM_METHODS and not with_dim:
        return None  # ``x.max()``, ``torch.max(a, b)``: one tensor
    if method not in vocab.TUPLE_METHODS and method not in vocab.TUPLE_WITH_DIM_METHODS:
        return None
    if method in _VALUES_AND_INDICES:
        values = tensor(tensor_value.state, double_backward=tensor_value.double_backward, params=tensor_value.params)
        return tuple_of([values, DETACHED_TENSOR])
    return Value(tensor_value.state, Kind.CONTAINER, tensor_value.double_backward and tensor_value.attached, params=tensor_value.params)


def is_parameters_call(node: cst.BaseExpression) -> bool:
    """``model.parameters()``, ``list(...)`` of it, ``OrderedDict(... for n, p in m.named_parameters())``."""
    while True:
        if type(node) is cst.Call and type(node.func) is cst.Name and node.args:
            node = node.args[0].value  # ``list(model.parameters())``, ``chain(...)``
        elif (type(node) is cst.GeneratorExp or type(node) is cst.ListComp or type(node) is cst.DictComp) and node.for_in.inner_for_in is None:
            node = node.for_in.iter  # ``OrderedDict((n, p) for (n, p) in self.named_parameters())``
        else:
            break
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in (
        "parameters", "named_parameters"
    )


def _iterates_modules(node: cst.BaseExpression) -> bool:
    """``self.layers``, ``model.children()``, ``zip(self.blocks, ...)``: one forward, module by module."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in (
        "children", "modules", "named_children", "named_modules", "parameters", "named_parameters"
    ):
        return True
    if type(node) is cst.Call and last_identifier(node.func) in ("zip", "enumerate", "reversed"):
        return any(_iterates_modules(arg.value) for arg in node.args)
    while type(node) is cst.Subscript:
        node = node.value  # ``self.layers[: n]``
    key = dotted(node)
    return key is not None and key.startswith("self.") and any(
        word in key.rsplit(".", 1)[-1].lower() for word in ("layer", "block", "head", "stage", "module")
    )


def _framework_loss_roots(node: cst.BaseExpression, aliases: ImportAliases) -> set[str]:
    """The names a framework backwards in a returned ``loss``, ``{"loss": loss, ...}`` or
    ``(loss, outputs) if return_outputs else loss``."""
    if type(node) is cst.IfExp:
        return _framework_loss_roots(node.body, aliases) | _framework_loss_roots(node.orelse, aliases)
    if type(node) is cst.Dict:
        return set().union(*(
            _backward_roots(element.value, aliases) for element in node.elements
            if type(element) is cst.DictElement and type(element.key) is cst.SimpleString
            and _string_value(element.key) == "loss"
        ))
    if type(node) is cst.Tuple and node.elements:
        return _backward_roots(node.elements[0].value, aliases)  # ``(loss, outputs)``: the first
    return _backward_roots(node, aliases)


def _backward_roots(node: cst.CSTNode, aliases: ImportAliases) -> set[str]:
    """The names holding the backwarded value: ``loss`` in ``scaler.scale(loss.mean())`` and in
    ``out["loss"]``; not the inputs of a forward or loss call (``x`` in ``model(x).sum()``)."""
    if type(node) is cst.Arg:  # ``accelerator.backward(loss)``, ``autograd.grad(loss, params)``
        return _backward_roots(node.value, aliases)
    if type(node) is cst.Name or type(node) is cst.Attribute:
        key = dotted(node)
        if key is not None:
            return {key}
        return _backward_roots(node.value, aliases) if type(node) is cst.Attribute else set()
    if type(node) is cst.Subscript:
        return _backward_roots(node.value, aliases)
    if type(node) is cst.BinaryOperation:
        return _backward_roots(node.left, aliases) | _backward_roots(node.right, aliases)
    if type(node) is cst.UnaryOperation:
        return _backward_roots(node.expression, aliases)
    if type(node) is cst.Tuple or type(node) is cst.List:
        return set().union(*(_backward_roots(element.value, aliases) for element in node.elements))
    if type(node) is cst.Call:
        func = node.func
        name = aliases.qualify(func) or ""
        if type(func) is cst.Attribute and func.attr.value in _TENSOR_METHODS:
            return _backward_roots(func.value, aliases)
        if (name.startswith("torch.") and not name.startswith("torch.nn.")) or name in vocab.PASSING_BUILTINS or (
            type(func) is cst.Attribute and func.attr.value in ("scale", *vocab.PASSING_WRAPPERS)
        ):
            return set().union(*(_backward_roots(arg.value, aliases) for arg in node.args))
    return set()


def _calls_in(node: cst.BaseExpression) -> Iterator[cst.Call]:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call:
            yield current
        stack.extend(_expression_children(current))


def _concatenates_onto(call: cst.Call, key: str, aliases: ImportAliases) -> bool:
    """``torch.cat([acc, x])``, ``torch.stack((acc, x))``: the key itself is among the pieces."""
    name = aliases.qualify(call.func) or ""
    return (
        name in ("torch.cat", "torch.concat", "torch.concatenate", "torch.vstack", "torch.hstack", "torch.stack", "torch.row_stack")
        and bool(call.args)
        and isinstance(call.args[0].value, (cst.List, cst.Tuple))
        and any(_root_key(element.value) == key for element in call.args[0].value.elements)
    )


def _rebuilt_from_its_elements(node: cst.BaseExpression, key: str) -> bool:
    """A list of values each computed from an element of ``key`` itself: ``[w - lr * g for w, g
    in zip(key, grads)]``, ``[key[0] - lr * grads[0]]`` (fast weights updated by a step): the
    new list's graph builds on the old one's, as ``h = f(h)`` does. A comprehension that only
    filters or moves the elements (``[x for x in key if ...]``) computes nothing from them."""
    if type(node) in (cst.ListComp, cst.GeneratorExp):
        element = node.elt  # type: ignore[attr-defined]
        clause: Optional[cst.CompFor] = node.for_in  # type: ignore[attr-defined]
        targets: set[str] = set()
        from_key = False
        while clause is not None:
            targets |= set(mentions(clause.target))
            from_key = from_key or key in mentions(clause.iter, through_detach=False)
            clause = clause.inner_for_in
        return from_key and type(element) is cst.BinaryOperation and bool(targets & set(mentions(element, through_detach=False)))
    if type(node) in (cst.List, cst.Tuple):
        return any(
            type(element.value) is cst.BinaryOperation
            and any(_root_key(leaf) == key or (type(leaf) is cst.Subscript and dotted(leaf.value) == key) for leaf in arithmetic_leaves(element.value))
            for element in node.elements  # type: ignore[attr-defined]
        )
    return False


def _holds_no_graph(container: Value) -> bool:
    """A container (or a value of unknown kind) without graph: nothing taken out of it carries
    one, whether indexed (``batches[i]["x"]``) or unpacked (``grad, = torch.autograd.grad(...)``)."""
    return container.detached and container.kind in (Kind.CONTAINER, Kind.UNKNOWN, Kind.TUPLE) and not (
        container.elements and any(element.records_graph for element in container.elements)
    )


def _root_key(node: cst.BaseExpression) -> Optional[str]:
    """``self.queue`` for ``self.queue.to(device)``: the tensor a chain of tensor methods starts from."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _TENSOR_METHODS:
        node = node.func.value
    return dotted(node)


def _is_sum_of_list(call: cst.Call, key: str) -> bool:
    """``sum([total, loss])``: an accumulation written as a call."""
    return (
        type(call.func) is cst.Name
        and call.func.value == "sum"
        and len(call.args) == 1
        and isinstance(call.args[0].value, (cst.List, cst.Tuple))
        and any(dotted(element.value) == key for element in call.args[0].value.elements)
    )


def _is_super(node: cst.BaseExpression) -> bool:
    """``super()`` (or ``super(Cls, self)``)."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "super"


def _is_logging(call: cst.Call) -> bool:
    return _names_logging(dotted(call.func) or "")


@functools.lru_cache(maxsize=4096)
def _names_logging(callee: str) -> bool:
    """``writer.add_scalar``, ``print``, ``wandb.log`` (memoised: asked for every call)."""
    name = callee.lower()
    return name == "print" or any(word in name for word in vocab.LOGGING_WORDS)
