"""libcst edit primitives the rules' fixes are built from, and how a fix becomes text edits.

An ``Edit`` names nodes of the parsed module (positions are resolved only where a fix is
offered or applied); ``text_edits`` turns one into the text changes ``--fix``, JSON and SARIF
use, from the positions the engine already resolved for the finding, without printing the
whole module again. Nothing here decides what a value is: the analysis does
(``analysis/tensors.py``, ``analysis/escape.py``); these build the change once it is decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Optional, Union

import libcst as cst

from torchleak.analysis.escape import aliases, uses
from torchleak.analysis.facts import Accumulation, FileFacts, Function, Kind, Loop, Store
from torchleak.analysis.flow import mentions
from torchleak.analysis.tensors import TensorEvidence
from torchleak.rule import Edit, Fix, Offer, Report, Rule, TextEdit


def evidence(facts: FileFacts, function: Function) -> TensorEvidence:
    """What the file proves about the values of ``function``."""
    return TensorEvidence(facts, function, aliases(facts.module))


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
    detacher = _Detacher(facts, evidence)
    result = detacher.visit(node)
    return result if result is not None and detacher.changed else None


class _Detacher:
    """``detach_values``' walk (an object rather than a recursive closure: a closure that calls
    itself is a reference cycle, which would keep the facts and the whole tree alive until the
    cyclic collector runs)."""

    def __init__(self, facts: FileFacts, evidence: TensorEvidence) -> None:
        self.facts = facts
        self.evidence = evidence
        self.changed = False

    def visit(self, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            elements: list[cst.BaseElement] = []
            for element in value.elements:
                if isinstance(element, cst.StarredElement):
                    if _maybe_attached(self.facts, element.value):
                        return None
                    elements.append(element)
                    continue
                new = self.visit(element.value)
                if new is None:
                    return None
                elements.append(element.with_changes(value=new))
            return value.with_changes(elements=elements)
        if isinstance(value, cst.Dict):
            entries: list[cst.BaseDictElement] = []
            for entry in value.elements:
                if isinstance(entry, cst.StarredDictElement):
                    if _maybe_attached(self.facts, entry.value):
                        return None
                    entries.append(entry)
                    continue
                new = self.visit(entry.value)
                if new is None:
                    return None
                entries.append(entry.with_changes(value=new))
            return value.with_changes(elements=entries)
        if isinstance(value, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return None if _maybe_attached(self.facts, value) else value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
            # ``[out] * r`` repeats a list literal: detach inside it (``[out.detach()] * r``)
            if isinstance(value.left, (cst.List, cst.Tuple)) and not _maybe_attached(self.facts, value.right):
                new = self.visit(value.left)
                return None if new is None else value.with_changes(left=new)
            if isinstance(value.right, (cst.List, cst.Tuple)) and not _maybe_attached(self.facts, value.left):
                new = self.visit(value.right)
                return None if new is None else value.with_changes(right=new)
        recorded = self.facts.values.get(id(value))
        if recorded is None:
            return None  # not evaluated by the walk: cannot tell
        if not recorded.attached:
            return value
        if not self.evidence.tensor(value):
            return None  # ``.detach()`` on a tuple, a dict or a number raises
        self.changed = True
        return method_call(value, "detach")


def _maybe_attached(facts: FileFacts, node: cst.BaseExpression) -> bool:
    recorded = facts.values.get(id(node))
    return recorded is None or recorded.attached


def detach_fix(facts: FileFacts, event: Union[Store, Accumulation]) -> Optional[Fix]:
    """Keep ``.detach()`` of what a store or an accumulation keeps: ``history.append(out)`` becomes
    ``history.append(out.detach())`` (literals entered), ``acc += x`` becomes ``acc += x.detach()``.
    Safe where the container or accumulator never leaves the function; no fix where a value is
    not known to be one tensor."""
    function = event.function
    if isinstance(event, Accumulation):
        value = event.value_node
        if isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp)) or not evidence(facts, function).tensor(value):
            return None
        if event.value.kind in (Kind.CONTAINER, Kind.TUPLE):
            return None  # summed element by element (``map(sum, zip(totals, losses))``): a sequence

        new: Optional[cst.BaseExpression] = method_call(value, "detach")
        owner: cst.BaseExpression = event.target
        while isinstance(owner, cst.Subscript):
            owner = owner.value
        stays = isinstance(owner, cst.Name) and not uses(facts, function, owner.value).escapes
        kept, verb, where = code(owner), "accumulate", f"'{code(value)}' is a tensor"
    else:
        value = event.value_node
        new = detach_values(facts, evidence(facts, function), value)
        stays = not uses(facts, function, event.key).escapes
        kept, verb, where = event.key, "store", "every value detached is a tensor"
    if new is None:
        return None
    reason = (
        f"{where} and '{kept}' never leaves the function"
        if stays
        else f"'{kept}' leaves the function (returned, stored or an attribute): a caller may backward through it"
    )
    return Fix("safe" if stays else "unsafe", f"{verb} '{code(new)}' instead of '{code(value)}'", (Edit(value, new),), reason=reason)


def line_holding(body: Sequence[cst.CSTNode], small: cst.CSTNode) -> cst.CSTNode:
    """The statement to insert next to: the line holding ``small`` when it is alone on it."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            if any(part is small for part in node.body):
                return node if len(node.body) == 1 else small
            continue
        for name in ("body", "orelse", "handlers", "finalbody"):
            part = getattr(node, name, None)
            if isinstance(part, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                stack.extend(part.body)
            elif isinstance(part, (list, tuple)):
                stack.extend(part)
            elif isinstance(part, cst.CSTNode):
                stack.append(part)
    return small


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
    if not isinstance(loop.node, (cst.For, cst.While, cst.FunctionDef)):
        return None  # a comprehension has no statement to put a fix before
    body = loop.node.body
    statements: Sequence[cst.CSTNode] = body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if isinstance(loop.node, cst.FunctionDef) and statements and _is_docstring(statements[0]):
        statements = statements[1:]
    return statements[0] if statements else None


def _first_mention(method: cst.FunctionDef, key: str) -> Optional[cst.CSTNode]:
    """The first statement of a per-batch method that mentions ``key``: its detach goes there,
    after the guards before it (``if self.idx < self.start: return y``), for an attribute that
    ``__init__`` creates on some instances only."""
    body = method.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    # (the names the statement reads or writes, as the analysis sees them: not a comment's or a
    # string's text, which would put the detach above the guard again)
    return next((statement for statement in body.body if key in mentions(statement)), None)


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
    shapes: set[str] = set(TensorEvidence(facts, function, aliases(facts.module)).state_shapes(loop, key))
    guessed = "unknown" in shapes or "tuple?" in shapes
    if "tuple?" in shapes:
        shapes = (shapes - {"tuple?"}) | {"tuple"}
    torch = aliases(facts.module).local_name("torch")
    for fits, form, known in _STATE_FORMS:
        if shapes <= fits and ("{torch}" not in form or torch is not None):
            statement = cst.parse_statement(form.format(key=key, torch=torch) + "\n")
            assert isinstance(statement, cst.SimpleStatementLine)
            return statement.body[0], known and not guessed
    return None


def state_fix_edit(facts: FileFacts, function: Function, loop: Loop, key: str) -> Optional[tuple[Edit, bool, str]]:
    """Detach ``key`` at the top of every iteration of ``loop``: the edit, whether the state's
    shape is certain, and the statement's text."""
    if any(binding.key == key and binding.value.kind in (Kind.INSTANCE, Kind.MODULE) for binding in function.bindings):
        return None  # a record or an object (``RolloutState``): no ``.detach()``; its fields are the user's to detach
    anchor = loop_top(loop)
    if isinstance(loop.node, cst.FunctionDef) and anchor is not None:
        anchor = _first_mention(loop.node, key) or anchor
    made = state_detach(facts, function, loop, key) if anchor is not None else None
    if anchor is None or made is None:
        return None
    statement, certain = made
    return Edit(anchor, before=(statement,)), certain, code(statement)


# --------------------------------------------------------------------------- as text

#: Where a node is in the file: (start line, start column, end line, end column); lines from 1,
#: columns from 0 in code points, as libcst's PositionProvider counts them. None if unknown.
Locate = Callable[[cst.CSTNode], Optional[tuple[int, int, int, int]]]


def _trimmed(start_line: int, start_column: int, end_line: int, end_column: int, content: str, line: Callable[[int], str]) -> TextEdit:
    """The replacement of a range on one line, less the text it leaves as it was: removing
    ``retain_graph=True`` from a call is the removal of those characters, not a new call."""
    if start_line != end_line or "\n" in content:
        return TextEdit(start_line, start_column + 1, end_line, end_column + 1, content)
    old = line(start_line)[start_column:end_column]
    prefix = 0
    while prefix < min(len(old), len(content)) and old[prefix] == content[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(content)) - prefix and old[len(old) - 1 - suffix] == content[len(content) - 1 - suffix]:
        suffix += 1
    return TextEdit(start_line, start_column + prefix + 1, end_line, end_column - suffix + 1, content[prefix : len(content) - suffix])


def text_edits(fix: Fix, locate: Locate, line: Callable[[int], str], newline: str = "\n") -> Optional[tuple[TextEdit, ...]]:
    """``fix``'s edits as text edits on the file (``line(n)`` is its n-th line, without the line
    break), or None when a node cannot be located. Replacements print only the new node;
    statements inserted before (after) a statement alone on its line get a line of their own
    with its indentation, above the comments that lead it; in a one-line suite they are joined
    with ``;``."""
    printer = cst.Module(body=[], default_newline=newline)
    result: list[TextEdit] = []
    for edit in fix.edits:
        where = locate(edit.node)
        if where is None:
            return None
        start_line, start_column, end_line, end_column = where
        if edit.replacement is not None:
            replacement = edit.replacement
            original_parens = getattr(edit.node, "lpar", None)
            if original_parens and getattr(replacement, "lpar", None) == original_parens:
                # Positions leave out a node's own parentheses, which stay in the text.
                replacement = replacement.with_changes(lpar=[], rpar=[])
            result.append(_trimmed(start_line, start_column, end_line, end_column, printer.code_for_node(replacement), line))
        if not edit.before and not edit.after:
            continue
        first = line(start_line)
        indent = first[:start_column]
        alone = not indent.strip()
        if edit.before:
            texts = [printer.code_for_node(statement) for statement in edit.before]
            if alone:
                above = start_line - len(getattr(edit.node, "leading_lines", ()))
                result.append(TextEdit(above, 1, above, 1, "".join(f"{indent}{text}{newline}" for text in texts)))
            else:
                result.append(TextEdit(start_line, start_column + 1, start_line, start_column + 1, "".join(f"{text}; " for text in texts)))
        if edit.after:
            texts = [printer.code_for_node(statement) for statement in edit.after]
            last = line(end_line)
            if alone and not last[end_column:].strip(" \t").startswith(";"):
                # After the statement's line (its trailing comment included).
                result.append(TextEdit(end_line, len(last) + 1, end_line, len(last) + 1, "".join(f"{newline}{indent}{text}" for text in texts)))
            else:
                result.append(TextEdit(end_line, end_column + 1, end_line, end_column + 1, "".join(f"; {text}" for text in texts)))
    return tuple(result)


def offer_fix(
    rule: Rule, report: Report, facts: FileFacts, locate: Locate, line: Callable[[int], str], newline: str = "\n"
) -> Optional[Offer]:
    """The fix of ``report`` as text edits, or None (no fix, or one that cannot be placed). A bug
    in one fix leaves that finding without a fix, never the run broken."""
    if rule.fix_safety == "none":
        return None
    try:
        fix = rule.fix(report, facts)
        edits = text_edits(fix, locate, line, newline) if fix is not None and fix.edits else None
    except Exception:
        return None
    if fix is None or not edits:
        return None
    unique = tuple(dict.fromkeys(edits))  # two reports of one state insert its detach once
    return Offer(fix.safety, fix.description, unique, fix.reason)


def accumulation_fix(facts: FileFacts, event: Accumulation) -> Fix | None:
    """``acc += loss`` becomes ``acc += loss.item()`` where that provably changes nothing but the
    leak (a one-element tensor summed into a local only ever read as a number), else
    ``acc += loss.detach()`` (safe where the accumulator stays in the function). None where a
    helper sums what it computes itself: the fix goes into the helper."""
    value, target = event.value_node, event.target
    if event.via and value is event.node:
        return None
    known = evidence(facts, event.function)
    if isinstance(target, cst.Name) and not isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict)) and known.tensor(value):
        used = uses(facts, event.function, target.value)
        if used.number_only and (known.one_element(value) or used.one_element):
            new = method_call(value, "item")
            return Fix(
                "safe",
                f"accumulate '{code(new)}' instead of '{code(value)}'",
                (Edit(value, new),),
                reason=f"'{code(value)}' is a one-element tensor and '{target.value}' is only ever read as a number",
            )
    return detach_fix(facts, event)
