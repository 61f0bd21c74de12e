"""One ordered walk over a file: which values are on the autograd graph, where loops are, what
each statement does with graph-attached values (accumulate, store, backward, rebind).

The walk is flow-sensitive in statement order and deliberately simple: branches run one after
the other, loop bodies run once, and a call we cannot classify yields an unknown value. Every
approximation is chosen so that it can only make a rule stay silent, never make it report.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from torchleak.analysis import vocabulary as vocab
from torchleak.analysis.facts import (
    ATTACHED,
    DETACHED,
    UNKNOWN,
    Accumulation,
    BackwardCall,
    Binding,
    FileFacts,
    Function,
    GradReset,
    Loop,
    State,
    Store,
    Value,
)
from torchleak.analysis.names import ImportAliases, dotted, last_identifier
from torchleak.analysis.prefilter import called_under_no_grad
from torchleak.analysis.settings import Settings

_MODULE_CONVERSIONS = frozenset({"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16"})
_MODULE_WRAPPERS = ("DistributedDataParallel", "DataParallel", "compile", "from_pretrained", "create_model")
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)


def merge(*values: Value) -> Value:
    """The value of an expression computed from ``values``: attached if any input is."""
    attached = [value for value in values if value.attached]
    if attached:
        return Value(State.ATTACHED, any(v.double_backward for v in attached))
    if values and all(value.state is State.DETACHED for value in values):
        return DETACHED
    return UNKNOWN


def is_true(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def target_key(node: cst.BaseExpression) -> Optional[str]:
    """The name that owns a target: ``stats`` for ``stats["loss"]``, ``self.cache`` for itself."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return dotted(node)


def _prefixes(key: str) -> Iterator[str]:
    position = key.find(".")
    while position != -1:
        yield key[:position]
        position = key.find(".", position + 1)
    yield key


def _expression_children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The sub-expressions of common nodes, without libcst's generic (and slow) ``children``."""
    if isinstance(node, cst.Call):
        return [node.func, *(arg.value for arg in node.args)]
    if isinstance(node, cst.BinaryOperation):
        return (node.left, node.right)
    if isinstance(node, cst.Subscript):
        parts: list[cst.CSTNode] = [node.value]
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                parts.append(element.slice.value)
            elif isinstance(element.slice, cst.Slice):
                parts.extend(p for p in (element.slice.lower, element.slice.upper, element.slice.step) if p is not None)
        return parts
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return [element.value for element in node.elements]
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.Ellipsis, cst.Imaginary)):
        return ()
    if isinstance(node, cst.UnaryOperation):
        return (node.expression,)
    if isinstance(node, cst.Comparison):
        return [node.left, *(c.comparator for c in node.comparisons)]
    if isinstance(node, cst.Arg):
        return (node.value,)
    return node.children


def mentions(node: cst.CSTNode) -> set[str]:
    """The dotted names (and their prefixes) an expression reads, without side effects."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Name, cst.Attribute)):
            key = dotted(current)
            if key is not None:
                found.update(_prefixes(key))
                continue
        stack.extend(_expression_children(current))
    return found


def _strip_access(node: cst.BaseExpression) -> cst.BaseExpression:
    """``model(x, h)`` for ``model(x, h)[1]`` or ``model(x, h).hidden``."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return node


def _arithmetic_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return _arithmetic_leaves(node.left) + _arithmetic_leaves(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _arithmetic_leaves(node.expression)
    return [node]


def iter_statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every statement and small statement, nested bodies included."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, cst.SimpleStatementLine):
            stack.extend(reversed(node.body))
            continue
        nested: list[cst.CSTNode] = []
        for name in ("body", "orelse", "handlers", "finalbody", "cases"):
            part = getattr(node, name, None)
            if part is None:
                continue
            if isinstance(part, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                nested.extend(part.body)
            elif isinstance(part, (list, tuple)):
                nested.extend(part)
            elif isinstance(part, cst.CSTNode):
                nested.append(part)
        stack.extend(reversed(nested))


def _body(node: Union[cst.BaseSuite, cst.CSTNode]) -> Sequence[cst.CSTNode]:
    if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return node.body
    return ()


@dataclass
class _FileContext:
    module: cst.Module
    settings: Settings
    aliases: ImportAliases
    facts: FileFacts
    definitions: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    module_classes: set[str] = field(default_factory=set)
    module_keys: set[str] = field(default_factory=set)
    loss_keys: set[str] = field(default_factory=set)
    walked: dict[int, Function] = field(default_factory=dict)
    no_grad_callees: set[str] = field(default_factory=set)
    #: The top-level statement being walked, and the one each function definition sits in.
    top: Optional[cst.CSTNode] = None
    def_tops: dict[int, cst.CSTNode] = field(default_factory=dict)
    in_progress: set[int] = field(default_factory=set)
    seq: int = 0

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


def analyse(
    module: cst.Module, settings: Settings = Settings(), no_grad_callees: Optional[frozenset[str]] = None
) -> FileFacts:
    """Walk ``module`` once and return what every rule needs to know about it.

    ``no_grad_callees`` (functions called under ``torch.no_grad()``) may come from the caller,
    which sees the whole file when ``module`` is only its relevant part.
    """
    statements = list(iter_statements(module.body))
    context = _FileContext(
        module=module,
        settings=settings,
        aliases=ImportAliases(s for s in statements if isinstance(s, (cst.Import, cst.ImportFrom))),
        facts=FileFacts(module),
    )
    if no_grad_callees is None:
        no_grad_callees = called_under_no_grad(ast.parse(module.code))
    context.no_grad_callees = set(no_grad_callees)
    for top in module.body:
        for nested in iter_statements([top]):
            if isinstance(nested, cst.FunctionDef):
                context.def_tops[id(nested)] = top
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            context.definitions.setdefault(statement.name.value, []).append(statement)
        elif isinstance(statement, cst.ClassDef) and any(
            (dotted(base.value) or "").endswith("Module") or (dotted(base.value) or "").endswith("Model")
            for base in statement.bases
        ):
            context.module_classes.add(statement.name.value)
    _Walker(context, module, "<module>", no_grad=False, per_batch=False).run(module.body)
    return context.facts


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
    ) -> None:
        self.context = context
        self.function = Function(node, name)
        self.env: dict[str, Value] = {}
        self.loops: list[Loop] = []
        self.no_grad = no_grad
        self.values: dict[int, Value] = context.facts.values  # ids are unique across walkers
        self.returns: list[Value] = []
        self.statement: cst.CSTNode = node
        if per_batch and isinstance(node, cst.FunctionDef):
            self.loops.append(Loop(node, None, per_batch_method=True, start=context.seq + 1))

    # ----------------------------------------------------------------- bookkeeping
    def run(self, body: Sequence[cst.CSTNode]) -> Function:
        self.context.facts.functions.append(self.function)
        if isinstance(self.function.node, cst.Module):
            for statement in body:
                self.context.top = statement
                self._statement(statement)
        else:
            self._block(body)
        self.function.returns = merge(*self.returns) if self.returns else DETACHED
        for loop in self.loops:  # the per-batch method's pseudo-loop
            loop.end = self.context.seq
            self.context.facts.loops.append(loop)
        return self.function

    @property
    def loop(self) -> Optional[Loop]:
        return self.loops[-1] if self.loops else None

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

    def _locate(self, *nodes: Optional[cst.CSTNode]) -> None:
        """Remember which top-level statement holds nodes a rule may report."""
        if self.context.top is not None:
            for node in nodes:
                if node is not None:
                    self.context.facts.top_of[id(node)] = self.context.top

    def _code(self, node: cst.CSTNode) -> str:
        return self.context.module.code_for_node(node)

    # ----------------------------------------------------------------- statements
    def _block(self, body: Sequence[cst.CSTNode]) -> None:
        for statement in body:
            self._statement(statement)

    def _statement(self, node: cst.CSTNode) -> None:
        self.statement = node
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.statement = small
                self._small_statement(small)
        elif isinstance(node, cst.BaseSmallStatement):  # a one-line body: `for x in loader: a; b`
            self._small_statement(node)
        elif isinstance(node, (cst.For,)):
            self._for(node)
        elif isinstance(node, cst.While):
            self._while(node)
        elif isinstance(node, cst.If):
            self.evaluate(node.test)
            self._block(_body(node.body))
            if isinstance(node.orelse, cst.If):
                self._statement(node.orelse)
            elif node.orelse is not None:
                self._block(_body(node.orelse.body))
        elif isinstance(node, cst.With):
            self._with(node)
        elif isinstance(node, cst.Try) or isinstance(node, cst.TryStar):
            self._block(_body(node.body))
            for handler in node.handlers:
                self._block(_body(handler.body))
            if node.orelse is not None:
                self._block(_body(node.orelse.body))
            if node.finalbody is not None:
                self._block(_body(node.finalbody.body))
        elif isinstance(node, cst.FunctionDef):
            self.walk_function(node, inherited_no_grad=self.no_grad)
        elif isinstance(node, cst.ClassDef):
            for statement in _body(node.body):
                if isinstance(statement, cst.FunctionDef):
                    self.walk_function(statement, inherited_no_grad=False)
        elif isinstance(node, cst.Match):
            self.evaluate(node.subject)
            for case in node.cases:
                self._block(_body(case.body))

    def _small_statement(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Assign):
            value = self.evaluate(node.value)
            for target in node.targets:
                self._bind(target.target, node.value, value, node)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self._bind(node.target, node.value, self.evaluate(node.value), node)
        elif isinstance(node, cst.AugAssign):
            self._augmented(node)
        elif isinstance(node, cst.Expr):
            self._expression_statement(node.value)
        elif isinstance(node, cst.Return):
            value = self.evaluate(node.value) if node.value is not None else DETACHED
            self.returns.append(value)
            if node.value is not None:
                self.function.consumed.update(mentions(node.value))
        elif isinstance(node, cst.Del):
            for key in mentions(node.target):
                self.env[key] = DETACHED
                self._write(key)
                self._binding(node, key, DETACHED, set())
        elif isinstance(node, (cst.Raise, cst.Assert)):
            for part in (getattr(node, "exc", None), getattr(node, "test", None)):
                if isinstance(part, cst.BaseExpression):
                    self.evaluate(part)

    def _expression_statement(self, expression: cst.BaseExpression) -> None:
        if isinstance(expression, cst.Call):
            mode = self._grad_mode(expression, statement=True)
            if mode is not None:  # torch.set_grad_enabled(False) switches the rest of the body
                self.no_grad = mode == "off"
        if isinstance(expression, (cst.Yield,)) and isinstance(expression.value, cst.BaseExpression):
            self.function.consumed.update(mentions(expression.value))
        if isinstance(expression, cst.Call) and not _is_logging(expression):
            # A call made for its effect may keep or differentiate what it is given.
            for arg in expression.args:
                self.function.consumed.update(mentions(arg.value))
        self.evaluate(expression)

    def _binding(self, node: cst.CSTNode, key: str, value: Value, sources: set[str], fed: bool = False) -> None:
        event = Binding(node, self.context.next_seq(), self.loop, self.function, key, value, frozenset(sources), fed)
        self._locate(node)
        self.function.bindings.append(event)

    def _bind(self, target: cst.BaseExpression, value_node: cst.BaseExpression, value: Value, statement: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]]
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(target.elements):
                pairs = [(t.value, v.value) for t, v in zip(target.elements, value_node.elements)]
                for element_target, element_value in pairs:
                    self._bind(element_target, element_value, self.values.get(id(element_value), value), statement)
            else:
                for element in target.elements:
                    self._bind(element.value, value_node, value, statement)
            return
        if isinstance(target, cst.StarredElement):
            self._bind(target.value, value_node, value, statement)
            return
        if isinstance(target, cst.Subscript):
            self._subscript_store(target, value_node, value, statement)
            return
        key = dotted(target)
        if key is None:
            return
        sources = mentions(value_node)
        if value.attached and key in sources:
            self._self_referential_update(target, key, value_node, statement)
        call = _strip_access(value_node)
        fed = isinstance(call, cst.Call) and any(key in mentions(arg.value) for arg in call.args)
        self._binding(statement, key, value, sources, fed)
        self._flow(sources, key)
        if isinstance(target, cst.Attribute) and value.attached:
            self.function.consumed.update(sources)  # it leaves the function through an attribute
        if isinstance(target, cst.Attribute) and target.attr.value == "grad" and (
            isinstance(value_node, cst.Name) and value_node.value == "None"
        ):
            self.function.grad_resets.append(GradReset(statement, self.context.next_seq(), self.loop, self.function))
        self._note_module_binding(key, value_node)
        self.env[key] = value
        self._write(key)

    def _self_referential_update(
        self, target: cst.BaseExpression, key: str, value_node: cst.BaseExpression, statement: cst.CSTNode
    ) -> None:
        """``acc = acc + x`` and ``ema = 0.9 * ema + 0.1 * x``: an accumulation written out."""
        leaves = _arithmetic_leaves(value_node)
        if not any(dotted(leaf) == key for leaf in leaves):
            return
        others = [leaf for leaf in leaves if dotted(leaf) != key]
        attached = [leaf for leaf in others if self.values.get(id(leaf), UNKNOWN).attached]
        if attached:
            value = self.values[id(attached[0])]
            self._accumulation(statement, target, key, "=", attached[0], value)

    def _accumulation(
        self,
        statement: cst.CSTNode,
        target: cst.BaseExpression,
        key: str,
        operator: str,
        value_node: cst.BaseExpression,
        value: Value,
    ) -> None:
        self._locate(statement)
        self.function.accumulations.append(
            Accumulation(statement, self.context.next_seq(), self.loop, self.function, target, key, operator, value_node, value)
        )

    def _subscript_store(
        self, target: cst.Subscript, value_node: cst.BaseExpression, value: Value, statement: cst.CSTNode
    ) -> None:
        container = self.evaluate(target.value)
        index: set[str] = set()
        for element in target.slice:
            if isinstance(element.slice, cst.Index):
                self.evaluate(element.slice.value)
            index |= mentions(element.slice)
        key = target_key(target)
        if key is None:
            return
        self._flow(mentions(value_node), key)
        if value.attached:
            self._locate(statement)
            self.function.stores.append(
                Store(statement, self.context.next_seq(), self.loop, self.function, target.value, key, "[]=", value_node, value, frozenset(index))
            )
            self.env[key] = merge(container, value)

    def _augmented(self, node: cst.AugAssign) -> None:
        key = target_key(node.target)
        if key is not None:
            for prefix in _prefixes(key):
                self._read(prefix)
        if isinstance(node.target, cst.Subscript):
            for element in node.target.slice:
                if isinstance(element.slice, cst.Index):
                    self.evaluate(element.slice.value)
        value = self.evaluate(node.value)
        if key is None:
            return
        self._flow(mentions(node.value), key)
        if value.attached:
            self._locate(node)
            if isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp)):
                self.function.stores.append(
                    Store(node, self.context.next_seq(), self.loop, self.function, node.target, key, "+=", node.value, value)
                )
            else:
                operator = self._code(node.operator).strip()
                self._accumulation(node, node.target, key, operator, node.value, value)
            self.env[key] = merge(self.env.get(key, UNKNOWN), value)
        self._binding(node, key, self.env.get(key, UNKNOWN), mentions(node.value) | {key})
        self._write(key)

    def _for(self, node: cst.For) -> None:
        iterable = self.evaluate(node.iter)
        over_loader = any(
            vocab.LOADER_NAME.search(part) for name in mentions(node.iter) for part in name.split(".")
        )
        loop = self._enter_loop(node, over_loader)
        loop.loop_targets = frozenset(mentions(node.target))
        self._bind(node.target, node.iter, iterable if iterable.attached else UNKNOWN, node)
        self._block(_body(node.body))
        self._leave_loop(loop)
        if node.orelse is not None:
            self._block(_body(node.orelse.body))

    def _while(self, node: cst.While) -> None:
        loop = self._enter_loop(node, over_loader=False)
        self.evaluate(node.test)
        self._block(_body(node.body))
        self._leave_loop(loop)
        if node.orelse is not None:
            self._block(_body(node.orelse.body))

    def _enter_loop(self, node: Union[cst.For, cst.While], over_loader: bool) -> Loop:
        attached = frozenset(key for key, value in self.env.items() if value.attached)
        loop = Loop(node, self.loop, over_loader=over_loader, start=self.context.seq + 1, attached_on_entry=attached)
        self.loops.append(loop)
        return loop

    def _leave_loop(self, loop: Loop) -> None:
        loop.end = self.context.seq
        self.loops.pop()
        self.context.facts.loops.append(loop)

    def _with(self, node: cst.With) -> None:
        saved = self.no_grad
        for item in node.items:
            mode = self._grad_mode(item.item, statement=False)
            self.evaluate(item.item)
            if mode is not None:
                self.no_grad = mode == "off"
            if item.asname is not None and isinstance(item.asname.name, cst.BaseExpression):
                for key in mentions(item.asname.name):
                    self.env[key] = UNKNOWN
                    self._write(key)
        self._block(_body(node.body))
        self.no_grad = saved

    def _grad_mode(self, node: cst.BaseExpression, *, statement: bool) -> Optional[str]:
        """"off" for ``torch.no_grad()`` and friends, "on" for ``torch.enable_grad()``."""
        if not isinstance(node, cst.Call):
            return None
        name = self.context.aliases.qualify(node.func)
        if name is None:
            return None
        if name in vocab.SET_GRAD_ENABLED:
            first = node.args[0].value if node.args else None
            if isinstance(first, cst.Name) and first.value == "True":
                return "on"
            # A variable (``set_grad_enabled(is_train)``) may be the eval branch: stay silent.
            return "off"
        if statement:
            return None
        if name in vocab.NO_GRAD_CALLABLES:
            return "off"
        if name in vocab.ENABLE_GRAD_CALLABLES:
            return "on"
        return None

    def walk_function(self, node: cst.FunctionDef, *, inherited_no_grad: bool) -> Function:
        done = self.context.walked.get(id(node))
        if done is not None:
            return done
        name = node.name.value
        no_grad = inherited_no_grad or name in vocab.NO_GRAD_METHODS or name in self.context.no_grad_callees or any(
            self.context.aliases.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in vocab.NO_GRAD_CALLABLES
            for d in node.decorators
        )
        per_batch = name in vocab.PER_BATCH_METHODS or name in self.context.settings.per_batch_methods
        self.context.in_progress.add(id(node))
        outer_top = self.context.top
        self.context.top = self.context.def_tops.get(id(node), outer_top)
        walker = _Walker(self.context, node, name, no_grad=no_grad, per_batch=per_batch)
        for param in node.params.params:
            walker.env[param.name.value] = UNKNOWN
        function = walker.run(_body(node.body))
        self.context.top = outer_top
        self.context.in_progress.discard(id(node))
        self.context.walked[id(node)] = function
        return function

    def _note_module_binding(self, key: str, value_node: cst.BaseExpression) -> None:
        if not isinstance(value_node, cst.Call):
            return
        name = self.context.aliases.qualify(value_node.func) or ""
        last = name.rsplit(".", 1)[-1]
        if name.startswith("torch.nn.") and last[:1].isupper():
            (self.context.loss_keys if last.endswith("Loss") else self.context.module_keys).add(key)
        elif last in self.context.module_classes or last.endswith(_MODULE_WRAPPERS):
            self.context.module_keys.add(key)
        elif isinstance(value_node.func, cst.Attribute) and value_node.func.attr.value in _MODULE_CONVERSIONS:
            if dotted(value_node.func.value) in self.context.module_keys:
                self.context.module_keys.add(key)

    # ----------------------------------------------------------------- expressions
    def evaluate(self, node: cst.BaseExpression) -> Value:
        value = self._evaluate(node)
        self.values[id(node)] = value
        return value

    def _evaluate(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return DETACHED
            self._read(node.value)
            return self.env.get(node.value, UNKNOWN)
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Subscript):
            container = self.evaluate(node.value)
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    self.evaluate(element.slice.value)
                elif isinstance(element.slice, cst.Slice):
                    for part in (element.slice.lower, element.slice.upper, element.slice.step):
                        if part is not None:
                            self.evaluate(part)
            if self.no_grad:
                return DETACHED
            return container if container.attached else UNKNOWN
        if isinstance(node, cst.BinaryOperation):
            left, right = self.evaluate(node.left), self.evaluate(node.right)
            return DETACHED if self.no_grad else merge(left, right)
        if isinstance(node, cst.UnaryOperation):
            operand = self.evaluate(node.expression)
            if isinstance(node.operator, cst.Not) or self.no_grad:
                return DETACHED
            return operand
        if isinstance(node, cst.BooleanOperation):
            return merge(self.evaluate(node.left), self.evaluate(node.right))
        if isinstance(node, cst.Comparison):
            self.evaluate(node.left)
            for comparison in node.comparisons:
                self.evaluate(comparison.comparator)
            return DETACHED  # comparisons give bool tensors, which carry no graph
        if isinstance(node, cst.IfExp):
            self.evaluate(node.test)
            return merge(self.evaluate(node.body), self.evaluate(node.orelse))
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            elements = [self.evaluate(element.value) for element in node.elements]
            return merge(*elements) if elements else DETACHED
        if isinstance(node, cst.Dict):
            parts: list[Value] = []
            for entry in node.elements:
                if isinstance(entry, cst.DictElement):
                    self.evaluate(entry.key)
                parts.append(self.evaluate(entry.value))
            return merge(*parts) if parts else DETACHED
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._comprehension(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
            return DETACHED
        if isinstance(node, cst.FormattedString):
            for content in node.parts:
                if isinstance(content, cst.FormattedStringExpression):
                    self.evaluate(content.expression)
            return DETACHED
        if isinstance(node, cst.Lambda):
            return DETACHED
        if isinstance(node, cst.NamedExpr):
            value = self.evaluate(node.value)
            self._bind(node.target, node.value, value, node)
            return value
        if isinstance(node, (cst.Await, cst.StarredElement)):
            return self.evaluate(node.expression if isinstance(node, cst.Await) else node.value)
        if isinstance(node, cst.Yield):
            if isinstance(node.value, cst.BaseExpression):
                self.evaluate(node.value)
            return UNKNOWN
        return UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        key = dotted(node)
        if key is None:
            base = self.evaluate(node.value)
        else:
            for prefix in _prefixes(key):
                self._read(prefix)
            if key in self.env:
                return self.env[key]
            base = self.env.get(key.rsplit(".", 1)[0], UNKNOWN)
        if node.attr.value in vocab.DETACHING_ATTRIBUTES:
            return DETACHED
        return base if base.attached else UNKNOWN

    def _comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]) -> Value:
        saved: dict[str, Optional[Value]] = {}
        clause: Optional[cst.CompFor] = node.for_in
        while clause is not None:
            iterable = self.evaluate(clause.iter)
            for key in mentions(clause.target):
                saved.setdefault(key, self.env.get(key))
                self.env[key] = iterable if iterable.attached else UNKNOWN
            for condition in clause.ifs:
                self.evaluate(condition.test)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.evaluate(node.key)
            value = self.evaluate(node.value)
        else:
            value = self.evaluate(node.elt)
        for key, previous in saved.items():
            if previous is None:
                self.env.pop(key, None)
            else:
                self.env[key] = previous
        return value

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        receiver = UNKNOWN
        if isinstance(func, cst.Attribute):
            receiver = self.evaluate(func.value)
        elif isinstance(func, cst.Name):
            self._read(func.value)
        else:
            self.evaluate(func)
        arguments = [self.evaluate(arg.value) for arg in node.args]
        self._call_events(node, receiver, arguments)
        if self.no_grad:
            return DETACHED
        return self._call_value(node, receiver, arguments)

    def _call_value(self, node: cst.Call, receiver: Value, arguments: list[Value]) -> Value:
        func = node.func
        name = self.context.aliases.qualify(func) or ""
        identifier = last_identifier(func) or ""
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        positional = [value for arg, value in zip(node.args, arguments) if arg.keyword is None and not arg.star]

        if name in vocab.AUTOGRAD_GRAD:
            if is_true(keyword(node, "create_graph")):
                return Value(State.ATTACHED, double_backward=True)
            return DETACHED if keyword(node, "create_graph") is None or _is_false(keyword(node, "create_graph")) else UNKNOWN
        if name in vocab.DETACHING_CALLABLES or method in vocab.DETACHING_METHODS:
            return DETACHED
        if "detach" in identifier.lower() or "repackage" in identifier.lower():
            return DETACHED
        if name.startswith(("numpy.", "np.", "math.")):
            return DETACHED
        key = dotted(func)
        if self._is_loss_call(key, identifier, name):
            return self._loss_value(positional, arguments)
        if name.endswith("functional_call"):
            return ATTACHED
        if name.startswith("torch."):
            if name.startswith(("torch.nn.", "torch.optim.")) and identifier[:1].isupper():
                return DETACHED  # constructing a module or optimizer
            if name.startswith(("torch.utils.", "torch.cuda.", "torch.distributed.", "torch.backends.")):
                return UNKNOWN
            return merge(*arguments) if arguments else UNKNOWN
        if receiver.attached:
            return receiver  # a tensor method: .sum(), .mean(), .cpu(), .to(), .view() keep the graph
        if self._is_model_call(func, key, identifier):
            return ATTACHED
        if isinstance(func, cst.Attribute) and method in vocab.FORWARD_METHODS:
            owner = last_identifier(func.value)
            if owner is not None and (
                owner == "self" or vocab.MODEL_NAME.match(owner) or dotted(func.value) in self.context.module_keys
            ):
                return ATTACHED
        summary = self._summary(func, identifier)
        if summary is not None:
            return summary
        if isinstance(func, cst.Name) and identifier in vocab.PASSING_BUILTINS:
            return merge(*arguments) if arguments else UNKNOWN
        return UNKNOWN

    def _is_loss_call(self, key: Optional[str], identifier: str, name: str) -> bool:
        return (
            (key is not None and key in self.context.loss_keys)
            or bool(vocab.LOSS_NAME.match(identifier))
            or bool(vocab.FUNCTIONAL_LOSS.match(name))
            or identifier in self.context.settings.loss_names
        )

    def _is_model_call(self, func: cst.BaseExpression, key: Optional[str], identifier: str) -> bool:
        if key == "self":
            return True  # a module calling its own forward, as Lightning's training_step does
        if key is not None and key in self.context.module_keys:
            return True
        if identifier in self.context.settings.model_names:
            return True
        if not vocab.MODEL_NAME.match(identifier):
            return False
        if isinstance(func, cst.Attribute):
            # ``self.encoder(x)`` and ``model.backbone(x)`` are submodules; ``cfg.model(...)`` is not.
            owner = dotted(func.value)
            return owner is not None and (
                owner == "self" or owner in self.context.module_keys or bool(vocab.MODEL_NAME.match(owner.rsplit(".", 1)[-1]))
            )
        return True

    def _loss_value(self, positional: list[Value], arguments: list[Value]) -> Value:
        """A loss of graph-attached predictions is attached; of unknown ones, assumed attached."""
        attached = merge(*arguments) if arguments else UNKNOWN
        if attached.attached:
            return attached
        if positional and positional[0].state is State.DETACHED:
            return DETACHED  # criterion(pred.detach(), y) or computed under no_grad
        return ATTACHED

    def _summary(self, func: cst.BaseExpression, identifier: str) -> Optional[Value]:
        """The return value of a function or method defined in this file, walked on demand."""
        if isinstance(func, cst.Attribute) and dotted(func.value) != "self":
            return None
        definitions = self.context.definitions.get(identifier)
        if not definitions:
            return None
        results = []
        for definition in definitions:
            if id(definition) in self.context.in_progress:
                return UNKNOWN  # recursion
            results.append(self.walk_function(definition, inherited_no_grad=False).returns)
        return merge(*results)

    def _call_events(self, node: cst.Call, receiver: Value, arguments: list[Value]) -> None:
        func = node.func
        name = self.context.aliases.qualify(func) or ""
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method in vocab.BACKWARD_METHODS or name in vocab.AUTOGRAD_GRAD or name in vocab.AUTOGRAD_BACKWARD:
            self._backward(node, name, method)
        elif method == "step" and isinstance(func, cst.Attribute):
            owner = last_identifier(func.value) or ""
            if vocab.OPTIMIZER_NAME.match(owner) or owner.endswith("scaler"):
                for loop in self.loops:
                    loop.has_optimizer_step = True
        elif method in vocab.STORING_METHODS and isinstance(func, cst.Attribute):
            key = target_key(func.value)
            if key is None:
                return
            for arg, value in zip(node.args, arguments):
                self._flow(mentions(arg.value), key)
                if value.attached:
                    self._locate(node)
                    self.function.stores.append(
                        Store(node, self.context.next_seq(), self.loop, self.function, func.value, key, method, arg.value, value)
                    )
                    self.env[key] = merge(self.env.get(key, UNKNOWN), value)
        elif method in ("detach_", "clear") and isinstance(func, cst.Attribute):
            key = dotted(func.value)
            if key is not None:
                self.env[key] = DETACHED
                self._binding(node, key, DETACHED, set())
        elif method in vocab.GRAD_RESET_METHODS and not _is_false(keyword(node, "set_to_none")):
            self.function.grad_resets.append(GradReset(node, self.context.next_seq(), self.loop, self.function))

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
            assert isinstance(func, cst.Attribute)
            # accelerator.backward(loss) and self.manual_backward(loss) name the tensor as an argument
            owner_is_tensor = self.values.get(id(func.value), UNKNOWN).attached or not positional
            outputs = func.value if owner_is_tensor else positional[0]
        output_mentions = frozenset(mentions(outputs)) if outputs is not None else frozenset()
        event = BackwardCall(
            node,
            self.context.next_seq(),
            self.loop,
            self.function,
            kind,
            frozenset(mentions(node)),
            output_mentions,
            keyword(node, "retain_graph") if is_true(keyword(node, "retain_graph")) else None,
            keyword(node, "create_graph") if is_true(keyword(node, "create_graph")) else None,
            self.statement,
        )
        self._locate(node, event.retain_graph, event.create_graph)
        self.function.backwards.append(event)
        self.function.backward_mentions.update(event.mentions)
        for loop in self.loops:
            loop.has_backward = True
        if kind == "grad" and event.create_graph is not None:
            self.function.double_backward_grads.append(event)


def _is_logging(call: cst.Call) -> bool:
    name = (dotted(call.func) or "").lower()
    return name == "print" or any(word in name for word in vocab.LOGGING_WORDS)


def _is_false(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False"
