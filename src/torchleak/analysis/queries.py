"""Questions several rules ask of the facts: does this value outlive the iteration, is it ever
backwarded, which loop carries state from one iteration into the next."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Final, Optional, TypeVar, Union

import libcst as cst

from torchleak.analysis.facts import Accumulation, BackwardCall, Binding, CallSite, FileFacts, Function, Kind, Loop, Store, key_prefixes
from torchleak.analysis.values import HOLDS_NO_GRAPH
from torchleak.analysis import torch_knowledge as vocab
from torchleak.analysis.names import dotted
from torchleak.analysis.summaries import Effect, Externals
from torchleak.analysis.flow import (
    DECAYING_SUM, additive_terms, arithmetic_leaves, decays_itself, decaying_increment, lerp_operands, single_assign, callee_sum_of_argument, data_mentions, grad_inputs_argument, grad_inputs_given, is_parameters_call, fixed_at_its_line, keeps_in_one_place, mentions, carries_what_it_computes, computed_and_handed_on, HELPER_SEPARATOR,
    iter_statements, own_returns, reach, scope_of, stores_the_parameter, subtree, zipped_with,
)

Held = Union[Accumulation, Store]
#: One kind of held event (a function's sums, or its stores).
HeldKind = TypeVar("HeldKind", Accumulation, Store)


def leaking_loop(event: Held, facts: FileFacts) -> Optional[Loop]:
    """The innermost batch loop across whose iterations the event's target keeps its value."""
    if event.loop is None:
        return None
    for loop in event.loop.enclosing():
        if loop.is_batch_loop and loop.outlives_iteration(event.key):
            if reset_by_another_method(facts, loop, event.key):
                return None
            return loop
    return None


def reset_by_another_method(facts: FileFacts, loop: Loop, key: str, updater: str = "") -> bool:
    """``forward`` may keep state on ``self`` that the training loop resets through another method
    (``model.cache.clear()``, ``detach_state()``): how often is not known, so stay silent. A
    reset that keeps the history (``self.v_mem.zero_()``) resets nothing, and neither does the
    method that updates the state (``RunningStat.update`` building ``self.mean`` when it is None)."""
    return any(
        _ever_called(facts, function) and not _only_keeps_history(function, key) and function.name != updater
        for function in _resetting_methods(facts, loop, key)
    )


def history_keeping_reset(facts: FileFacts, loop: Loop, key: str) -> Optional[Binding]:
    """The reset of the state ``forward`` keeps, when every called reset zeroes it in place
    (``self.v_mem.zero_()``): the values start over, the graph keeps growing; the fix is there."""
    called = [function for function in _resetting_methods(facts, loop, key) if _ever_called(facts, function)]
    if not called or not all(_only_keeps_history(function, key) for function in called):
        return None
    attribute = key.rsplit(".", 1)[-1]
    return next(
        binding for binding in called[0].bindings if binding.keeps_history and binding.key.rsplit(".", 1)[-1] == attribute
    )


def _only_keeps_history(function: Function, key: str) -> bool:
    attribute = key.rsplit(".", 1)[-1]
    resets = [binding for binding in function.bindings if "." in binding.key and binding.key.rsplit(".", 1)[-1] == attribute]
    return bool(resets) and all(binding.keeps_history for binding in resets)


def uncalled_reset(facts: FileFacts, loop: Loop, key: str) -> Optional[str]:
    """A method of the file that would reset the state ``forward`` keeps (``detach_states``),
    which nothing calls: the fix is to call it once per training iteration."""
    return next((function.name for function in _resetting_methods(facts, loop, key) if not _ever_called(facts, function)), None)


def _resetting_methods(facts: FileFacts, loop: Loop, key: str) -> Iterator[Function]:
    if not (loop.per_batch_method and type(loop.node) is cst.FunctionDef and loop.node.name.value == "forward"):
        return
    attribute = key.rsplit(".", 1)[-1]
    for function in facts.functions:
        if function.node is loop.node or function.name.rsplit(".", 1)[-1] in _RUN_ONCE:
            continue
        module_global = "." not in key and _declares_global(function, key)  # (``global _registry; _registry = []``)
        if any(
            # an attribute of that name (a local ``mem`` of another method resets nothing), set to a
            # value that does not depend on the method's input (the submodule's own update is none)
            ("." in binding.key and binding.key.rsplit(".", 1)[-1] == attribute or module_global and binding.key == key)
            and not binding.value.attached
            and not binding.value.params and not _outside_batch_loop(facts, binding)
            and not _called_only_outside_batch_loops(facts, function, attribute)
            and not (binding.via and (binding.loop is None or not any(outer.is_batch_loop for outer in binding.loop.enclosing())) and not (
                # (a per-batch step that resets it, ``tgn.memory.detach_memory()`` after the optimizer step)
                binding.loop is None and per_batch_calls(facts, function)
            ))
            for binding in function.bindings
        ):
            yield function


def _declares_global(function: Function, name: str) -> bool:
    """``global name`` in the function's own body: its bindings of ``name`` rebind the module's."""
    node = function.node
    if type(node) is not cst.FunctionDef:
        return False
    return any(
        type(small) is cst.Global and any(item.name.value == name for item in small.names)
        for statement in node.body.body if type(statement) is cst.SimpleStatementLine for small in statement.body
    )


def _ever_called(facts: FileFacts, function: Function) -> bool:
    """A method that resets the state is a reset only where something calls it: in the file
    (through any receiver), or in a module of the project that imports this one."""
    if function.name.rsplit(".", 1)[-1] in facts.called_names():
        return True
    if not any(loop.is_batch_loop and not loop.per_batch_method for loop in facts.loops):
        return True  # the training loop is not in this file: it may well call it
    externals = facts.externals
    return externals is not None and bool(externals.path) and bool(externals.importer_facts())


def _called_only_outside_batch_loops(facts: FileFacts, method: Function, attribute: str) -> bool:
    """``model.reset_memory()`` called before the loop over segments, never inside it: the
    reset its summary applies at each call site runs once per document, not per batch."""
    if method.node is facts.module:
        return False
    calls = [
        binding
        for function in facts.functions
        for binding in function.bindings
        if binding.via.startswith(method.name + " ") and binding.key.rsplit(".", 1)[-1] == attribute
    ]
    if not calls:
        # (a reset of each element of a list of modules, ``for layer in self.layers:
        # layer.reset_memory()``, binds nothing in the caller: its calls say where it runs)
        return _runs_outside_batch_loops(facts, method)
    return all(
        (binding.loop is None or _outside_batch_loop(facts, binding) or not any(loop.is_batch_loop for loop in binding.loop.enclosing()))
        # (a reset called from a function that itself runs per batch, ``reset_states`` looping
        # over ``self.modules()`` at the top of the network's ``forward``, runs per batch)
        and not _function_runs_per_batch(facts, binding.function)
        for binding in calls
    )


def _function_runs_per_batch(facts: FileFacts, function: Function) -> bool:
    """A per-batch method (a module's ``forward``), or a function some per-batch code calls."""
    if type(function.node) is cst.Module:
        return False
    return any(loop.per_batch_method and loop.node is function.node for loop in facts.loops) or bool(per_batch_calls(facts, function))


def _runs_outside_batch_loops(facts: FileFacts, function: Function, depth: int = 0) -> bool:
    """Every call of ``function`` in the file runs outside loops over batches, and so does
    every call of the functions making those calls (``LM.reset_memory`` looping over its layers'
    ``reset_memory``, called once before training). The method itself must be called somewhere;
    a caller nothing calls is an entry point, run once; a per-batch helper (``train_step``) is not."""
    sites = _call_sites_of(facts, function)
    if not sites:
        return depth > 0  # (a caller nothing calls is an entry point: it runs once)
    if depth > 4:
        return False
    for site in sites:
        if site.loop is not None and any(loop.is_batch_loop for loop in site.loop.enclosing()):
            return False
        caller = site.function
        if type(caller.node) is cst.Module:
            continue
        if per_batch_calls(facts, caller) or not _runs_outside_batch_loops(facts, caller, depth + 1):
            return False
    return True


def _outside_batch_loop(facts: FileFacts, binding: Binding) -> bool:
    """The reset runs in a loop around a loop over batches that backwards each of them (once
    per epoch or document), not in it. Around an inner loop that only runs forwards, with the
    backward after it (a clip's frames, an epoch's graph snapshots), a reset per outer turn
    bounds the chain to what that backward differentiates."""
    if binding.loop is None:
        return False
    return any(
        inner is not binding.loop and inner.is_batch_loop and not inner.contains(binding.seq)
        and binding.loop in inner.enclosing() and (inner.has_backward or inner.has_optimizer_step)
        for inner in facts.loops
    )


#: Methods that run once per object: setting ``self.cache = []`` there resets nothing per step.
_RUN_ONCE: Final = frozenset({"__init__", "__post_init__", "__new__", "setup", "build", "reset_parameters"})


def backwarded_later(function: Function, key: str) -> bool:
    """Whether anything computed from ``key`` reaches a backward call in the same function."""
    return bool(function.derived_from({key}) & function.backward_mentions)


def backwarded_elsewhere(facts: FileFacts, key: str, owner: Optional[Function] = None) -> bool:
    """Whether a function of the file differentiates what ``key`` holds: REINFORCE's
    ``policy.saved_log_probs``, filled in ``select_action`` and backwarded in ``finish_episode``.
    A local of ``owner`` (``out`` in ``sample_eval``) is no other function's ``out``."""
    if owner is not None and "." not in key and type(owner.node) is not cst.Module and any(b.key == key for b in owner.bindings):
        return False
    attribute = key.rsplit(".", 1)[-1]

    def same(source: str) -> bool:
        return source == key or ("." in key and "." in source and source.rsplit(".", 1)[-1] == attribute)

    if any(same(drawn) for drawn in facts.drawn_at_random):
        return False  # a replay memory: each draw would backward its graphs again, which raises
    backwarded_results = _backwarded_results_closure(facts)
    positions = facts.evidence.backwarded_positions if facts.evidence is not None else {}
    for function in facts.functions:
        if function.name in backwarded_results and _one_graph_returned(function) and any(
            same(source) and _at_a_backwarded_position(function, source, positions.get(function.name)) for source in function.returned_keys
        ):
            # (one value: of a tuple, the caller may backward one element and detach the other)
            return True  # ``def actor_loss(self): return -torch.cat(self.log_probs).mean()``, backwarded by its caller
        if not function.backwards:
            continue
        sources = function.sources_of(function.backward_mentions)
        if any(same(source) for source in sources):
            return True
        # (a helper that backwards inside, ``self.train_epoch()``, is called, not read: what its
        # own result holds is not differentiated by that call)
        helpers = {dotted(call.node.func) for call in function.backwards if call.kind == "call" and type(call.node) is cst.Call}
        if "." in key and _read_back_through_accessors(facts, attribute, sources - helpers):
            return True
    return False


def _at_a_backwarded_position(function: Function, key: str, positions: Optional[set[int]]) -> bool:
    """``key`` is returned at a position of the tuple that callers backward (all, when they
    backward the whole result): a replay buffer's ``sample`` returning the stored log-probs
    that the learner only reads detached is not differentiated through them."""
    if positions is None:
        return True
    returned_at = _returned_at(function, key)
    return returned_at is None or bool(returned_at & positions)


def _read_back_through_accessors(facts: FileFacts, attribute: str, sources: set[str]) -> bool:
    """What a backward reads through an accessor of an object of the file (``episodes =
    self.memory.sample()`` returning ``self.stored_episodes``) holds what the object keeps in
    ``attribute``, or in an attribute its own methods move it to (``store_experience`` appending
    ``self.current_episode[key]`` to ``self.stored_episodes``): on-policy memory, backwarded."""
    called = {source.rsplit(".", 1)[-1] for source in sources if "." in source}
    read: set[str] = set()
    moved: dict[str, set[str]] = {}
    for method in facts.functions:
        if method.cls is None:
            continue
        for source, targets in method.data_flows_to.items():
            if source.startswith("self.") and source.count(".") == 1:
                moved.setdefault(source[len("self."):], set()).update(t[len("self."):] for t in targets if t.startswith("self.") and t.count(".") == 1)
        name = method.name.rsplit(".", 1)[-1]
        if name in called and len(method.summary.parameters) == 1 and type(method.node) is cst.FunctionDef:
            read |= {key[len("self."):] for key in method.returned_keys if key.startswith("self.") and key.count(".") == 1}
    if not read:
        return False
    return bool(reach(moved, attribute) & read)


def _one_graph_returned(function: Function) -> bool:
    """The function returns one value that may hold a graph: one value, or a tuple with one
    such element (``return critic_loss, advantages.detach()``)."""
    elements = function.returns.elements
    return elements is None or sum(not element.detached for element in elements) <= 1


def _backwarded_results_closure(facts: FileFacts) -> set[str]:
    """Functions whose result a backward differentiates, directly or through the result of
    another function that returns it (``total = self.actor_loss() + critic``, returned and
    backwarded by the caller)."""
    if facts.evidence is None:
        return set()
    return _returned_on_closure(facts, set(facts.evidence.backwarded_results))


def _results_of_trained_forwards(facts: FileFacts) -> set[str]:
    """The forwards of the file's modules, in a file that trains (a backward in it), and the
    functions whose results they return (an ODE solver's ``odeint(func, y0, ...)`` returned by
    ``CNF.forward``): what a forward returns is what a loss is computed from."""
    if not any(function.backwards for function in facts.functions):
        return set()
    forwards = {
        function.name for function in facts.functions
        if function.cls in facts.module_classes and function.name.rsplit(".", 1)[-1] in vocab.FORWARD_METHODS
    }
    return _returned_on_closure(facts, forwards)


def _returned_on_closure(facts: FileFacts, found: set[str]) -> set[str]:
    """``found`` and the functions whose results they return, transitively."""
    observations = facts.observations
    if observations is None:
        return found
    returning = [
        (function.name, callee_name) for function, key, _callee, resolved, callee_name, _given in observations.call_results
        if resolved and key is not None and _flows_into_returned(function, key)
    ]
    # (and calls written in a ``return`` itself: ``return diff(u, [t]) - alpha * diff(u, [x, x])``)
    if facts.returned_calls is None:
        facts.returned_calls = {
            id(node): function.name for function in facts.functions if type(function.node) is cst.FunctionDef
            for statement in own_returns(function.node) if statement.value is not None
            for node in subtree(statement.value) if type(node) is cst.Call
        }
    returned_calls = facts.returned_calls
    returning += [(returned_calls[site.call_id], site.callee) for site in facts.call_sites if site.call_id in returned_calls]
    grown = True
    while grown:
        grown = False
        for caller, callee in returning:
            if caller in found and callee not in found:
                found.add(callee)
                grown = True
    return found


def _flows_into_returned(function: Function, key: str) -> bool:
    """``key`` is returned, or put into what is returned: into an element of a returned list
    (``for gen_dial in gen_dial_batch: gen_dial['logprob'].append(act_logprob[i])`` with
    ``act_logprob`` computed from ``act_out``, and ``gen_dial_batch`` returned)."""
    if key in function.returned_keys:
        return True
    derived = function.derived_from({key})
    return any(
        binding.key in derived and type(binding.node) is cst.For and binding.mentions & function.returned_keys
        for binding in function.bindings
    )


def returned_on_purpose(facts: FileFacts, event: Held, loop: Loop) -> bool:
    """A sum or list built by a loop that never backwards, then returned: a meta-loss or a
    micro-batch sum when a caller in the file backwards it; an accumulation nobody in the file
    reads as a number is given the same benefit of the doubt."""
    function = event.function
    if event.key not in function.returned_keys:
        return False
    evidence = facts.evidence
    name = function.name
    # (through callers that return it on: ``forward`` -> ``train_forward_prop`` -> the step that backwards it)
    if evidence is not None and (name in _backwarded_results_closure(facts) or name in facts.backwarded_by_importers):
        # A caller (in this file or, through the project index, another module) backwards
        # what is returned: the graphs are kept for that backward, whatever the loop does;
        # unless callers backward only other positions of the tuple (``_, meta_loss = learner(x)``
        # beside the returned ``self.losses``).
        positions = evidence.backwarded_positions.get(name)
        if positions is None or name in facts.backwarded_by_importers:
            return True
        returned_at = _returned_at(function, event.key)
        if returned_at == set():
            # returned as what it is computed into (``losses = self.summarize(total_losses)``)
            for key in function.derived_from({event.key}) - {event.key}:
                through = _returned_at(function, key)
                if through is None:
                    return True
                returned_at |= through
        return returned_at is None or bool(returned_at & positions)
    if loop.has_optimizer_step:
        return False
    if loop.has_backward and not (event.value.double_backward and _only_computes_gradients(function, loop)):
        # (a sum of ``autograd.grad(..., create_graph=True)`` terms, like a CNF's Jacobian trace,
        # is what a caller differentiates: the grads in the loop compute it, nothing consumes it)
        return False
    if function.summary.evaluates:
        return False  # ``model.eval()`` first: an evaluation pass, not a loss to backward
    if function.returns.detached and function.returns.kind in (Kind.TENSOR, Kind.NUMBER):
        return False  # what it returns holds no graph (``torch.cat(scores).argmax()``)
    if evidence is None:
        return True
    if isinstance(event, Accumulation):
        return name not in evidence.numeric_results
    return name not in evidence.called


def _returned_at(function: Function, key: str) -> Optional[set[int]]:
    """The positions of the returned tuples that hold ``key``; None when a return holding it
    is not a tuple literal (any position a caller unpacks may hold it)."""
    found: set[int] = set()
    if not isinstance(function.node, cst.FunctionDef):
        return None
    for node in own_returns(function.node):
        value = node.value
        if value is None or key not in mentions(value):
            continue
        if not isinstance(value, cst.Tuple) or any(isinstance(element, cst.StarredElement) for element in value.elements):
            return None
        found |= {index for index, element in enumerate(value.elements) if key in mentions(element.value)}
    return found


def _only_computes_gradients(function: Function, loop: Loop) -> bool:
    """Every backward in ``loop`` is ``torch.autograd.grad(..., create_graph=True)``."""
    inside = [call for call in function.backwards if loop.contains(call.seq)]
    return bool(inside) and all(call.kind == "grad" and call.create_graph is not None for call in inside)


def bounded_by_outer_step(event: Held, loop: Loop) -> bool:
    """An accumulator reset by an outer loop that steps the optimizer after the inner one
    (micro-batches of one step) holds at most one step, not the whole run."""
    if loop.has_optimizer_step or loop.per_batch_method or not loop.has_backward:
        return False
    outer = loop.parent
    while outer is not None:
        if outer.has_optimizer_step and not outer.outlives_iteration(event.key):
            return True
        outer = outer.parent
    if any(enclosing.has_optimizer_step for enclosing in loop.enclosing()):
        return False  # a loop of this function steps, and the sum outlives its iterations
    return _reset_by_each_call_that_steps(event)


def _reset_by_each_call_that_steps(event: Held) -> bool:
    """``def train_step(self): total = 0.0; for micro in ...: ...backward(); total += l`` then
    ``optimizer.step()``: a local of a function that steps the optimizer is created anew by every
    call, so it holds the micro-batches of one step, whoever calls the function and how often."""
    function = event.function
    summary = function.summary
    if not isinstance(event, Accumulation) or function.name == "<module>" or not summary.steps_optimizer:
        # (a list filled there keeps whatever it holds, e.g. ``create_graph`` gradients, until the call ends)
        return False
    root = event.key.split(".", 1)[0].split("[", 1)[0]
    if root in ("self", "cls") or root in summary.parameters:
        return False
    return any(binding.key == root for binding in function.bindings)


def held_across_iterations(facts: FileFacts, *, double_backward: bool, as_importer: bool = False) -> Iterator[tuple[Held, Loop]]:
    """Accumulations and stores of attached values that survive into the next iteration.

    ``double_backward`` selects values derived from ``autograd.grad(create_graph=True)``
    (TLK301) or all others (TLK101, TLK102). A call of another module's helper that keeps
    what it is given in one place, the project's only call of it, is reported in the helper
    (``_kept_for_importers`` of the helper's file), not here; with ``as_importer`` (``facts``
    is a module importing the linted one) such calls are kept, for that query.
    """
    if as_importer:
        yield from _held(facts, double_backward, as_importer)
        return

    def other_family() -> list[Held]:  # (asked only when a helper's calls seem split between the families)
        return [event for event, _ in _held(facts, not double_backward, as_importer)]

    yield from _kept_once_in_the_helper(facts, list(_held(facts, double_backward, as_importer)), double_backward, other_family)


def _kept_once_in_the_helper(
    facts: FileFacts, held: list[tuple[Held, Loop]], double_backward: bool = False, others: Callable[[], list[Held]] = lambda: [],
) -> Iterator[tuple[Held, Loop]]:
    """Calls of a helper of the file that keeps what it is given in one place, when every call
    of it leaks (``fold(stats, "ce", ce)`` beside ``fold(stats, "link", ll)``): one finding,
    at the helper's line, where the one fix goes, instead of one per call. Calls that hand it
    ``create_graph`` results (StyleGAN's ``training_stats.report`` of losses and penalties)
    leak as well: the helper's one finding is TLK101's, and TLK301 leaves those calls to it."""
    by_helper: dict[str, list[tuple[Held, Loop]]] = {}
    for event, loop in held:
        if event.kept_by:
            by_helper.setdefault(event.kept_by, []).append((event, loop))
    moved: set[int] = set()
    evidence = facts.evidence
    helpers = {function.name: function for function in facts.functions}
    other_events: Optional[list[Held]] = None
    for name, events in by_helper.items():
        calls = {call for callee, call in evidence.call_nodes if callee == name} if evidence is not None else set()
        helper = helpers.get(name)
        if len(calls) < 2 or helper is None:
            continue
        leaking = {id(event.node) for event, _ in events}
        if len(leaking) != len(calls):
            if other_events is None:
                other_events = others()
            split = {id(event.node) for event in other_events if event.kept_by == name}
            if len(leaking | split) != len(calls) or leaking & split:
                continue
            if double_backward:
                moved.update(id(event) for event, _ in events)  # (reported once, by TLK101, at the helper)
                continue
        event, loop = events[0]
        kept = _in_the_helper(facts, helper, event, loop, f"{helper.name} is given it at every call, by {event.function.name}")
        if kept is None:
            continue
        moved.update(id(other) for other, _ in events)
        yield kept, loop
    for event, loop in held:
        if id(event) not in moved:
            yield event, loop


def _held(facts: FileFacts, double_backward: bool, as_importer: bool) -> Iterator[tuple[Held, Loop]]:
    for function in facts.functions:
        events = _held_events(function)
        for event in events:
            if event.value.double_backward != double_backward:
                continue
            loop = _leaking(facts, function, event, as_importer)
            if loop is None:
                continue
            if _records_a_leaking_sum(facts, function, event):
                continue  # the epoch's record of a batch sum reported where it is summed: one fix
            yield _the_one_attached_entry(facts, event) or _filled_just_before(facts, function, event) or event, loop
    yield from _stored_per_call(facts, double_backward)
    if not as_importer:
        yield from _kept_for_importers(facts, double_backward)


def _leaking(facts: FileFacts, function: Function, event: Held, as_importer: bool = False) -> Optional[Loop]:
    """The loop across whose iterations ``event`` keeps a graph it should not, or None."""
    externals = facts.externals
    if event.helper and not as_importer and externals is not None and helper_fixing(externals, event.helper):
        return None
    if backwarded_later(function, event.key) or backwarded_elsewhere(facts, event.key, function):
        return None
    # The innermost batch loop first; when what it does makes a sum harmless there (a time
    # unroll within one step, backwarded after it), a loop around it that the target also
    # outlives (the pass over batches) may still keep every step's graph.
    for loop in _outlived_batch_loops(event, facts):
        if _leaks_across(facts, function, event, loop):
            return loop
    return None


def _outlived_batch_loops(event: Held, facts: FileFacts) -> Iterator[Loop]:
    first = leaking_loop(event, facts)
    if first is None:
        return
    yield first
    if not isinstance(event, Accumulation):
        return  # (a store in micro-batches, emptied by the step around them, is not followed out)
    for loop in first.enclosing():
        if loop is not first and loop.is_batch_loop and loop.outlives_iteration(event.key) and not reset_by_another_method(facts, loop, event.key):
            yield loop


def _leaks_across(facts: FileFacts, function: Function, event: Held, loop: Loop) -> bool:
    """``event`` keeps a graph across the iterations of ``loop`` that it should not."""
    if _emptied_every_iteration(function, event, loop):
        return False  # ``history.clear()`` (or ``history = []``) in every iteration
    if returned_on_purpose(facts, event, loop) or bounded_by_outer_step(event, loop):
        return False
    if _shares_a_graph_kept_for_a_later_backward(function, event, loop):
        return False  # predictions beside the task losses of a meta-loss: the same graphs
    if isinstance(event, Store) and event.method == "[]=" and not _index_changes_per_iteration(facts, event, loop):
        return False  # ``stats["loss"] = loss`` overwrites one slot: it holds one graph, not one per step
    if isinstance(event, Store) and event.method in ("[]=", "slice") and _slot_updated_in(function, event.key, loop):
        return False  # the first value of a slot the loop then updates (here or in a helper): reported at the update
    if not event.via and _loop_invariant(facts, function, event.value_node, loop):
        return False  # the same graph every iteration (``loss.repeat(n)`` of a loss from before the loop)
    if _repeats_on_one_batch(function, loop) and loop.parent is not None and not _counts_epochs(loop.parent) and not loop.parent.outlives_iteration(event.key):
        return False  # ``for _ in range(n_critic)`` on one batch, the sum reset by the batch loop: n graphs, not one per step
    if _bounded_by_one_batch(facts, function, event, loop):
        return False  # the tasks of one meta-batch, gathered and consumed in the call that handles it
    if _summed_within_one_step(facts, function, event, loop):
        return False  # micro-batches (or samples) of one optimizer step, summed in the call that takes it
    return True


def _range_loop(loop: Loop) -> Optional[cst.For]:
    """The loop's ``for`` when it counts ``range(...)``."""
    node = loop.node
    if type(node) is not cst.For or loop.over_loader or type(node.iter) is not cst.Call or dotted(node.iter.func) != "range":
        return None
    return node


def _counts_epochs(loop: Loop) -> bool:
    """``for epoch in range(n)``: an iteration prepares no batch, so a ``range`` loop inside it
    that draws its own (NGCF's ``for idx in range(n_batch)`` around ``data_generator.sample()``)
    is the pass over batches, not critic steps on one."""
    return _range_loop(loop) is not None


def _repeats_on_one_batch(function: Function, loop: Loop) -> bool:
    """``for _ in range(k):`` whose body never reads its counter: k updates on what the
    enclosing iteration prepared (a discriminator's critic steps), not a pass over batches."""
    node = _range_loop(loop)
    if node is None:
        return False
    counter = mentions(node.target)
    if counter <= {"_"}:
        return True  # (``_`` says it: never read, whatever inner loops also name ``_``)
    return not any(counter & mentions(statement) for statement in node.body.body)


def _the_one_attached_entry(facts: FileFacts, event: Held) -> Optional[Store]:
    """A record kept every iteration whose entries are numbers made on purpose (``.item()``,
    ``float(...)``) but for one tensor still attached (``kvs["x_grad"] = x_grad.abs().mean()``
    beside ``kvs["loss"] = loss.item()``): that entry is where the fix goes, reported there."""
    if not isinstance(event, Store) or event.loop is None or type(event.value_node) is not cst.Name:
        return None
    record = event.value_node.value
    entries: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
    for node in subtree(event.loop.node):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        target = node.targets[0].target
        if type(target) is cst.Name and target.value == record and type(node.value) is cst.Dict:
            entries.extend((element.value, element.value) for element in node.value.elements if type(element) is cst.DictElement)
        elif type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value == record:
            entries.append((node, node.value))
    attached = [(where, value) for where, value in entries if (known := facts.values.get(id(value))) is not None and known.attached]
    converted = any(
        type(value) is cst.Call and (
            type(value.func) is cst.Attribute and value.func.attr.value in vocab.TO_NUMBER or type(value.func) is cst.Name and value.func.value in vocab.TO_NUMBER
        )
        for _, value in entries
    )
    if len(attached) != 1 or not converted:
        return None
    where, value = attached[0]
    return replace(
        event, node=where, value_node=value, value=facts.values[id(value)], via=f"{record} is kept by '{statement_text(facts, event.node, limit=40)}' every iteration",
        in_callee="", given=False, helper="", kept_by="",
    )


#: In an event's ``via``: reported where the holder a helper is handed was filled.
HANDED_TO: Final = " is handed to '"


def _filled_just_before(facts: FileFacts, function: Function, event: Held) -> Optional[Held]:
    """A holder a helper is handed every iteration (``callbacks.on_batch_end(i, batch_logs)``,
    ``self.track(self.last_gp_loss, 'GP')``) that the iteration filled with an attached value
    just before (``batch_logs['loss'] = loss``, ``self.last_gp_loss = gp.clone()``), and that no
    backward of the function reads: the fix goes where it is filled (``loss.item()`` there),
    reported there."""
    if not event.via or event.loop is None or type(event.node) is not cst.Call:
        return None
    key = dotted(event.value_node)
    if key is None or key == "self":
        return None
    if function.derived_from({key}) & (function.backward_mentions | function.returned_keys):
        return None  # (a loss the step returns, or backwards: the fix cannot detach it where it is made)
    # a holder: an attribute set, or a dict's entry; a local bound to a computation is the value itself
    fills: list[tuple[int, cst.CSTNode, cst.BaseExpression]] = [
        (binding.seq, binding.node, binding.node.value)
        for binding in function.bindings
        if "." in key and binding.key == key and binding.seq < event.seq and event.loop.contains(binding.seq)
        and type(binding.node) is cst.Assign and len(binding.node.targets) == 1
    ]
    fills += [
        (store.seq, store.node, store.value_node)
        for store in function.stores
        if store.key == key and store.method == "[]=" and store.seq < event.seq and event.loop.contains(store.seq)
    ]
    attached = [(seq, node, value) for seq, node, value in fills if (known := facts.values.get(id(value))) is not None and known.attached]
    if len(attached) != 1:
        return None
    _, node, value = attached[0]
    via = f"{key}{HANDED_TO}{statement_text(facts, event.node, limit=40)}' every iteration"
    moved = replace(event, node=node, value_node=value, value=facts.values[id(value)], via=via, in_callee="", helper="", kept_by="")
    return replace(moved, given=False) if isinstance(moved, Store) else moved  # (a store's: no longer what a helper was given)


def _records_a_leaking_sum(facts: FileFacts, function: Function, event: Held) -> bool:
    """A store, in an outer loop, of what a sum its inner loop keeps attached is computed from
    (``training_stats.append({"loss": total_loss / len(loader)})`` per epoch after ``total_loss +=
    loss`` per batch), or of what a helper returns from such a sum (``valid = validate(...)``):
    the sum is reported where it is summed, and ``.item()`` there leaves nothing attached to
    record. Every name of the stored value that holds a graph must come from such a sum."""
    if not isinstance(event, Store) or event.loop is None:
        return False
    callee = next((other for other in facts.functions if other is not function and any(store.node is event.node for store in other.stores)), None)
    if callee is not None:
        return _records_its_own_leaking_sum(facts, callee, event)
    store_loop = event.loop
    direct = _called_function(event.value_node, function)
    if direct is not None and _returns_a_leaking_sum(facts, direct):
        return True  # ``curves[depth] = train(model, ...)``, whose own list is reported in ``train``
    sums = {
        # (a list kept the same way, ``batch_loss.append(loss)`` per batch then ``epoch_loss.append(
        # sum(batch_loss) / len(batch_loss))`` per epoch, is reported where it is kept, too)
        kept.key for kept in _held_events(function)
        if kept.loop is not None and store_loop in list(kept.loop.enclosing())
        # (or a sum of the same loop, logged each optimizer step then reset: diffusers'
        # ``accelerator.log({"train_loss": train_loss})`` after ``train_loss += avg_loss``)
        # (in the same loop, a sum is recorded whether it is summed above or below the record:
        # ``training_stats.append({"loss": total / k})`` every k steps, ``total += loss`` after)
        and (kept.loop is not store_loop or isinstance(kept, Accumulation))
        and _leaking(facts, function, kept) is not None
    }
    by_key = bindings_by_key(function.bindings)
    carried: Optional[set[str]] = None  # (made when first needed: it reads every loop's states)
    found = False
    for name in data_mentions(event.value_node):
        if name in sums:
            # (``log["loss"].extend(batch_losses)``, or ``history.append({"losses": batch_losses})``:
            # the list the inner loop fills is reported, ``.item()`` there leaves nothing attached)
            found = True  # (computed from the list the inner loop keeps, bound empty: ``sum(batch_loss)``)
            continue
        latest = reaching_binding(by_key, name, event.seq)
        if latest is None or not (latest.value.attached or latest.value.params):
            continue  # (a number, or a name the function does not bind)
        called = _called_function(latest.node.value, function) if type(latest.node) is cst.Assign else None
        if latest.fed_to_call and latest.value.attached and latest.loop is not None and latest.loop is not store_loop and (
            latest.loop.is_batch_loop and not latest.loop.over_layers and store_loop in list(latest.loop.enclosing())
        ):
            found = True  # (a running mean the inner loop carries, ``mloss = (mloss * i + items) / (i + 1)``: TLK103 there)
            continue
        if name in sums or sums & function.sources_of({name}, data_only=True) or (
            called is not None and store_loop.contains(latest.seq) and _returns_a_leaking_sum(facts, called)
        ):
            found = True
            continue
        if carried is None:
            # a state the training loop carries, reported as such (a rollout that never
            # backwards keeps both, each reported)
            carried = {
                binding.key for loop, binding in carried_state(facts)
                if binding.function is function and not binding.in_callee and loop.has_backward and store_loop in list(loop.enclosing())
            }
        if name in carried or _computed_from_alone(by_key, latest, carried):
            # (``losses.append(smoothed)`` with ``smoothed = avg_loss / (1 - beta ** n)`` of the
            # carried ``avg_loss``)
            found = True
            continue
        return False  # something else attached is kept with it: reported for that
    return found


def _computed_from_alone(by_key: dict[str, list[Binding]], binding: Binding, keys: set[str]) -> bool:
    """``binding`` assigns a value computed from ``keys`` and otherwise only from names that
    hold no graph where it reads them (numbers, data)."""
    if not keys or type(binding.node) is not cst.Assign:
        return False
    operands = data_mentions(binding.node.value)
    return bool(operands & keys) and all(
        operand in keys or (held := reaching_binding(by_key, operand, binding.seq)) is None or not (held.value.attached or held.value.params)
        for operand in operands
    )


def _records_its_own_leaking_sum(facts: FileFacts, callee: Function, event: Store) -> bool:
    """A store a function called per epoch makes after its batch loop (``history["loss"].append(
    train_loss / len(loader))`` in ``train(epoch)``) of a sum that loop keeps attached: reported
    where it is summed, as for a loop of the caller's own."""
    sums = {
        kept.key for kept in _held_events(callee)
        if isinstance(kept, Accumulation) and kept.loop is not None and not any(store.node is event.node and store.loop is not None and kept.loop in list(store.loop.enclosing()) for store in callee.stores)
        and _leaking(facts, callee, kept) is not None
    }
    names = data_mentions(event.value_node)
    if not names & sums:
        return False
    return all(name in sums or not any(binding.key == name and binding.value.attached for binding in callee.bindings) for name in names)


def _held_events(function: Function) -> list[Held]:
    """The function's accumulations and stores, as one list."""
    return [*function.accumulations, *function.stores]


def _called_function(value: cst.BaseExpression, function: Function) -> Optional[str]:
    """``validate`` for ``validate(...)`` (a function of the file, by its bare name),
    ``Trainer.eval`` for ``self.eval(...)`` in a method of ``Trainer``."""
    if type(value) is not cst.Call:
        return None
    func = value.func
    if type(func) is cst.Name:
        return func.value
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" and function.cls is not None:
        return f"{function.cls}.{func.attr.value}"
    return None


def _returns_a_leaking_sum(facts: FileFacts, name: str) -> bool:
    """The file's function ``name`` returns what a sum, or a list, it keeps attached over its
    loop is computed from (that sum or list is reported there: ``losses.append(loss)`` in a
    ``train`` returning ``losses``)."""
    helper = next((function for function in facts.functions if function.name == name), None)
    if helper is None or not (helper.accumulations or helper.stores) or type(helper.node) is not cst.FunctionDef:
        return False
    returned: set[str] = set()
    for statement in own_returns(helper.node):
        if statement.value is not None:
            returned |= data_mentions(statement.value)
    sources = helper.sources_of(returned, data_only=True) | returned
    kept = _held_events(helper)
    return any(event.key in sources and _leaking(facts, helper, event) is not None for event in kept)


def _summed_within_one_step(facts: FileFacts, function: Function, event: Held, loop: Loop) -> bool:
    """A local sum (or list) over a ``range`` loop of one optimizer step: the micro-batches of the batch a
    per-batch function is handed (improved-diffusion's ``forward_backward``, ``for i in range(0,
    batch.shape[0], self.microbatch)``, its step taken by the caller's iteration), or the samples
    of an optimizer's own ``step`` (VOGN's ``for _ in range(num_samples)``). The sum starts in
    each call and holds that step's graphs only; whatever the caller keeps of what is returned
    is reported where it is kept. A loop that draws its batches (``next(it)``) or steps an
    optimizer inside is a training loop of its own."""
    outer = loop.parent
    if outer is not None and not (outer.per_batch_method and outer.node is function.node):
        return False  # (the function's own run, once per batch, is no loop around it)
    if not isinstance(event, (Accumulation, Store)) or "." in event.key or type(loop.node) is not cst.For:
        return False
    if loop.has_optimizer_step or loop.over_loader or loop.per_batch_method:
        return False
    iterated = loop.node.iter
    ranged = type(iterated) is cst.Call and type(iterated.func) is cst.Name and iterated.func.value == "range"
    if not ranged and not (
        # (or, for a list filled per element, a loop over a list the call builds: pytti's
        # ``for aug in image_augs`` of one step's image losses)
        isinstance(event, Store) and type(iterated) is cst.Name
        and any(binding.key == iterated.value and binding.seq < loop.start for binding in function.bindings)
    ):
        return False
    if any(type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "next" for node in subtree(loop.node.body)):
        return False
    if not any(binding.key == event.key and binding.seq < loop.start for binding in function.bindings):
        return False  # (the sum must start in the call)
    if isinstance(event, Store) and event.key in function.sources_of(_returned_names(function)):
        return False  # (a list handed back holds every element's graph for the caller: an encoder's embeddings)
    if function.summary.steps_optimizer or function.name.rsplit(".", 1)[-1] == "step":
        return True
    return any(
        site.function.summary.steps_optimizer or site.loop is not None and any(outer.has_optimizer_step for outer in site.loop.enclosing())
        for site in per_batch_calls(facts, function)
    )


def _returned_names(function: Function) -> set[str]:
    """The names the function's ``return`` statements read."""
    if type(function.node) is not cst.FunctionDef:
        return set()
    return {name for statement in own_returns(function.node) if statement.value is not None for name in mentions(statement.value)}


def _bounded_by_one_batch(facts: FileFacts, function: Function, event: Held, loop: Loop) -> bool:
    """A local list filled in a loop over the batch a per-batch function is handed
    (``for x_s, y_s, x_q, y_q in task_batch: inner_directions.append(...)``) and consumed there
    (``torch.stack(inner_directions)``): it holds one batch's graphs and dies with the call, as
    the batch does; whatever the function keeps of it is reported where it keeps it."""
    if not isinstance(event, Store) or "." in event.key or event.via or type(loop.node) is not cst.For:
        return False
    if loop.over_loader or any(outer.over_loader or outer.per_batch_method for outer in loop.enclosing() if outer is not loop):
        return False
    iterated = dotted(loop.node.iter)
    parameters = set(function.summary.parameters)
    if iterated is None or iterated.split(".", 1)[0] not in parameters or not per_batch_calls(facts, function):
        return False
    return _consumed_in_place(function.node, event.key)


def _consumed_in_place(body: cst.CSTNode, key: str) -> bool:
    """Every read of the list ``key`` in ``body`` appends to it, measures it or hands it to a
    torch function that builds a new tensor from it: the list itself is never returned, kept
    or passed on."""
    handled = mentioned = 0
    for node in subtree(body):
        if type(node) is cst.Name and node.value == key:
            mentioned += 1
        elif type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == key for t in node.targets):
            handled += 1  # (``key = []``)
        elif type(node) is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == key and func.attr.value in ("append", "extend"):
                handled += 1
            elif any(type(arg.value) is cst.Name and arg.value.value == key for arg in node.args):
                name = dotted(func) or ""
                if not (name.startswith(("torch.", "F.")) or name in ("len", "sum", "zip", "enumerate")):
                    return False
                handled += 1
    return mentioned == handled


def keeps_several(facts: FileFacts, event: Held) -> bool:
    """What the event keeps is a container, a tuple or an object (``{"loss": loss}``,
    ``dict(step=step, **values)``): advice names each tensor in it, not ``.detach()`` of it."""
    if isinstance(event, Store) and event.given_several:
        return True
    node = event.value_node
    built = type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("dict", "list", "tuple", "set")
    return built or isinstance(node, (cst.Dict, cst.Tuple, cst.List, cst.Set)) or any(
        # (in a helper, what the caller gave says more than the parameter does)
        known.kind in (Kind.CONTAINER, Kind.TUPLE, Kind.INSTANCE) for known in (facts.values.get(id(event.value_node), event.value), event.value)
    )


def helper_fixing(externals: Externals, helper: str) -> str:
    """Of the helpers an event names (``Accumulation.helper``), the one whose module reports
    it, at its own statement (``ProjectIndex.fixed_in_helper``); "" when none does."""
    return next((key for key in helper.split(HELPER_SEPARATOR) if externals.fixed_in_helper(key)), "")


def _kept_for_importers(facts: FileFacts, double_backward: bool) -> Iterator[tuple[Held, Loop]]:
    """A helper of this file that keeps what it is given in one place (``self.history.append(value)``),
    called once in the whole project, by another module, in a loop that leaks through it
    (``logger.log(entropy=info["entropy"])`` in train.py): reported here, at that one line,
    where the fix goes."""
    externals = facts.externals
    if externals is None or not externals.path:
        return
    helpers = {f"{externals.path}:{function.summary.key}": function for function in facts.functions}
    candidates = {
        key for key, function in helpers.items()
        if any(
            effect.kind in ("store", "accumulate")
            and (effect.where == function.name and fixed_at_its_line(function.summary, effect) or computed_and_handed_on(function.summary, effect))
            for effect in function.summary.effects
        )
    }
    candidates = {key for key in candidates if externals.fixed_in_helper(key)}
    importers = {id(facts): facts for key in sorted(candidates) for facts in _importers_reaching(externals, key)}
    for importer in importers.values():
        for event, loop in held_across_iterations(importer, double_backward=double_backward, as_importer=True):
            fixing = helper_fixing(externals, event.helper) if event.helper else ""
            helper = helpers.get(fixing) if fixing in candidates else None
            if helper is None:
                continue
            kept = _in_the_helper(
                importer, helper, event, loop, _given_by(externals, helper, importer, event.function), _caller(externals, importer, event.function)
            )
            if kept is not None:
                yield kept, loop


def _in_the_helper(facts: FileFacts, helper: Function, event: Held, loop: Loop, given: str, caller: str = "") -> Optional[Held]:
    """The helper's own statement behind ``event`` (a call of it, in ``facts``), as the event to
    report: what the call passes, in the loop that passes it (``caller``: that loop's function,
    ``train.py's main``, for a helper of another module)."""
    own = _own_event(helper, event)
    if own is None:
        return None
    if own.via and caller:
        # what the helper computes and hands to one further down that keeps it: fixed here, as in
        # a loop of its own (``meters["loss"].update(loss)`` in a per-batch ``train_step``)
        return replace(own, loop=loop, via=f"{own.via}, and {caller} runs {helper.name} every iteration")
    if isinstance(own, Store):
        # (the parameter itself kept: what the caller passed says whether it holds several tensors)
        several = keeps_several(facts, event) and stores_the_parameter(helper, own.value_node)
        return replace(own, loop=loop, value=event.value, via=given, in_callee=helper.name, given=True, given_several=several)
    return replace(own, loop=loop, value=event.value, via=given, in_callee=helper.name)


def _own_event(helper: Function, event: Held) -> Optional[Held]:
    """The helper's own statement that keeps what the importer's ``event`` passed it."""
    kind = "store" if isinstance(event, Store) else "accumulate"
    for effect in helper.summary.effects:
        if effect.kind == kind and computed_and_handed_on(helper.summary, effect) and event.via.startswith(effect.where + " "):
            # (its call of the helper further down that keeps it: the event the helper recorded there)
            statement = helper.effect_nodes.get(id(effect))
            inside = {id(node) for node in subtree(statement)} if statement is not None else set()
            kept = _held_events(helper)
            own = next((other for other in kept if id(other.node) in inside), None)
            if own is not None:
                return own
            continue
        if effect.kind != kind or effect.where != helper.name or not fixed_at_its_line(helper.summary, effect):
            continue
        if "." in effect.target and "." in event.key and effect.target.rsplit(".", 1)[-1] != event.key.rsplit(".", 1)[-1]:
            continue  # (``self.buffer.logits`` is kept by the statement writing ``self.logits``, not ``self.examples``)
        statement = helper.effect_nodes.get(id(effect))
        if isinstance(event, Store):
            stored = helper.effect_stores.get(id(effect))
            if stored is not None:
                return stored
        else:
            for accumulation in helper.accumulations:
                if accumulation.node is statement:
                    return accumulation
            return callee_sum_of_argument(helper, effect)
    return None


def _stored_per_call(facts: FileFacts, double_backward: bool = False) -> Iterator[tuple[Held, Loop]]:
    """A method called from outside the file once per step (``agent.select_action(obs)``) that
    runs a forward and appends the attached result to a buffer on ``self``, which the file only
    ever reads detached (``torch.stack(self.buffer.logprobs).detach()``): every call's graph
    stays in the buffer until it is cleared, and nothing backwards it. With ``double_backward``:
    a method keeping a ``create_graph`` gradient it takes (a penalty's ``self.trace.append(gnorm)``),
    whose double-backward graph no later backward needs once the step is done."""
    evidence = facts.evidence
    if evidence is None:
        return
    for function in facts.functions:
        summary = function.summary
        if function.cls is None or function.name in evidence.called or summary.no_grad:
            continue
        if not (summary.runs_forward or double_backward):
            continue
        for store in function.stores:
            if store.loop is not None or store.value.double_backward != double_backward or store.method in ("[]=", "slice"):
                continue
            if not store.key.startswith("self.") or not (double_backward or store.key in facts.detached_reads):
                continue
            if backwarded_elsewhere(facts, store.key):
                continue
            if type(function.node) is cst.FunctionDef:
                yield store, Loop(function.node, None, per_batch_method=True)


def _shares_a_graph_kept_for_a_later_backward(function: Function, event: Held, loop: Loop) -> bool:
    """The loop keeps every iteration's graph on purpose in another local (task losses stacked
    into a meta-loss backwarded after the loop), and the event keeps a value computed from the
    same attached values (``logits.softmax(1)`` beside ``cross_entropy(logits, y)``): it keeps
    those graphs no longer than the local that is backwarded, and scales no worse. A value
    computed from the kept one (its gradient taken with ``create_graph``) is a new graph."""
    if "." in event.key:
        return False  # an attribute outlives the function's locals and their backward
    own = _reaching_bindings(function, mentions(event.value_node), event.seq)  # (``dist.entropy()`` reads ``dist``)
    others = _held_events(function)
    for other in others:
        if other is event or other.key == event.key or "." in other.key or not loop.contains(other.seq):
            continue
        if not backwarded_after(function, other.key, loop):
            continue
        if type(other.value_node) in (cst.Name, cst.Attribute):
            # (a kept expression, ``dist.log_prob(a)``, is a tensor no name holds: sharing its
            # inputs, ``dist.entropy()``, is sharing its graph)
            kept_roots = _reaching_bindings(function, data_mentions(other.value_node), other.seq, transitive=False)
            if kept_roots.keys() & own.keys():
                continue  # computed from the kept value itself
        kept = _reaching_bindings(function, data_mentions(other.value_node), other.seq)
        if any(binding.value.attached and loop.contains(binding.seq) for binding in own.values() if id(binding) in kept):
            return True
    return False


def _reaching_bindings(function: Function, names: set[str], before: int, *, transitive: bool = True) -> dict[int, Binding]:
    """The bindings (by ``id``) that ``names`` read at ``before`` in statement order, and with
    ``transitive`` the bindings those read in turn: a backward slice that tells two values of
    one name apart (the inner loop's ``loss`` and the task's ``loss``)."""
    by_key = bindings_by_key(function.bindings)
    found: dict[int, Binding] = {}
    pending = [(name, before) for name in names]
    while pending:
        name, seq = pending.pop()
        reaching = reaching_binding(by_key, name, seq)
        if reaching is None or id(reaching) in found:
            continue
        found[id(reaching)] = reaching
        if transitive:
            pending.extend((source, reaching.seq) for source in reaching.mentions)
    return found


def bindings_by_key(bindings: list[Binding]) -> dict[str, list[Binding]]:
    """The bindings grouped by the name they bind (for ``reaching``)."""
    by_key: dict[str, list[Binding]] = {}
    for binding in bindings:
        by_key.setdefault(binding.key, []).append(binding)
    return by_key


def reaching_binding(by_key: dict[str, list[Binding]], name: str, before: int) -> Optional[Binding]:
    """The binding of ``name`` that a read at ``before`` sees: the last one before it."""
    earlier = [binding for binding in by_key.get(name, ()) if binding.seq < before]
    return max(earlier, key=lambda binding: binding.seq) if earlier else None


def _emptied_every_iteration(function: Function, event: Held, loop: Loop) -> bool:
    """Whether the body of ``loop`` itself (not a branch, not an inner loop) clears or rebinds
    to a value without graph what the event keeps, before or after it: then it holds at most
    one iteration's values (``feats.clear()`` at the top of each step, or at its end)."""
    owners = set(key_prefixes(event.key))
    return any(
        binding.key in owners and not binding.value.attached and binding.seq != event.seq
        and binding.loop is loop and binding.branch_depth == loop.branch_depth
        # (``metrics = update_metrics(metrics, out)`` hands back what it was given, summed into:
        # not a new value unless the call is known to detach, as ``h = repackage(h)`` is)
        and not (binding.fed_to_call and binding.key in binding.mentions and not binding.value.detached)
        for binding in function.bindings
    )


def _loop_invariant(facts: FileFacts, function: Function, node: cst.CSTNode, loop: Loop) -> bool:
    """Every name ``node`` computes from keeps its value through ``loop``: each iteration
    stores a new wrapper of one and the same graph, not a new graph (unless it runs a forward
    pass: ``out[idx] = self.model(x)`` after loading each weight set is a new graph)."""
    names = data_mentions(node)
    if not names:
        return False
    if any(type(current) is cst.Call and id(current) in facts.forward_calls for current in subtree(node)):
        return False
    rebound = {b.key for b in function.bindings if loop.contains(b.seq)} | loop.loop_targets
    if loop.per_batch_method and loop.node is function.node:
        rebound |= {name.lstrip("*") for name in function.summary.parameters}  # (each call is handed new ones)
    if not any(prefix in rebound for name in names for prefix in key_prefixes(name)):
        # (``v`` of ``{k: totals[k] + v for k, v in losses.items()}`` is bound by the
        # comprehension around it, afresh in every iteration)
        return not names & _comprehension_targets(function, node) and not _called_in(loop, {
            prefix for name in names for prefix in key_prefixes(name) if prefix not in ("self", name)
        })
    return False


def _called_in(loop: Loop, owners: set[str]) -> bool:
    """A method of one of ``owners`` is called in ``loop`` (``self.agent.act(obs)``): what they
    hold may change (``self.agent.actor.outputs``, which the actor's forward rewrites)."""
    return bool(owners) and any(
        type(current) is cst.Call and type(current.func) is cst.Attribute and dotted(current.func.value) in owners
        for current in subtree(loop.node)
    )


def _comprehension_targets(function: Function, node: cst.CSTNode) -> set[str]:
    """The names bound by the comprehensions of ``function`` that contain ``node``."""
    found: set[str] = set()
    for current in subtree(function.node):
        if type(current) in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp) and any(inner is node for inner in subtree(current)):
            clause: Optional[cst.CompFor] = current.for_in  # type: ignore[attr-defined]
            while clause is not None:
                found |= mentions(clause.target)
                clause = clause.inner_for_in
    return found


def _slot_updated_in(function: Function, key: str, loop: Loop) -> bool:
    """``ema[k] = ema[k] * 0.9 + x`` (or ``+=``) somewhere in ``loop``."""
    return any(loop.contains(b.seq) and b.key == key and b.fed_to_call for b in function.bindings) or any(
        loop.contains(a.seq) and a.key == key for a in function.accumulations
    )


def _index_changes_per_iteration(facts: FileFacts, store: Store, loop: Loop) -> bool:
    if "<tensor>" in store.index_mentions:
        return True  # a tensor keeps every version written into it
    if "<argument>" in store.index_mentions:
        return True  # a helper's slot keyed by what each call gives it (``bank[sid]``)
    rebound = {b.key for b in store.function.bindings if loop.contains(b.seq)} | loop.loop_targets
    changing: set[str] = set(store.index_mentions & rebound) - _devices(store)
    if changing and store.loop is not None and store.loop is not loop:
        # ``for name in self.names: self.cache[name] = ...`` inside the batch loop (or a module's
        # forward): a loop over the same collection every time writes the same keys
        repeating = {
            id(inner.node) for inner in facts.loops
            if type(inner.node) is cst.For and inner is not loop and loop in inner.enclosing()
            and not any(prefix in rebound - inner.loop_targets for name in data_mentions(inner.node.iter) for prefix in key_prefixes(name))
        }
        changing = {
            key for key in changing
            if not all(id(b.node) in repeating for b in store.function.bindings if b.key == key and loop.contains(b.seq))
        }
    return bool(changing)


def _devices(store: Store) -> set[str]:
    """Names in the store's index bound to a tensor's device (``device = input[0].device``,
    byol's ``self.hidden[device] = output`` in a forward hook): one slot per device, the same
    one at every call."""
    found = set()
    for name in store.index_mentions:
        bindings = [b for b in store.function.bindings if b.key == name]
        assigns = [single_assign(b.node) for b in bindings]
        if bindings and all(
            assign is not None and type(assign.value) is cst.Attribute and assign.value.attr.value == "device" for assign in assigns
        ):
            found.add(name)
    return found


def carried_state(facts: FileFacts) -> Iterator[tuple[Loop, Binding]]:
    """Loops that feed a graph-attached value from one iteration into the next forward pass.

    ``out, h = model(x, h)`` inside a batch loop, where ``h`` reaches the iteration from the
    previous one (its first use in the body is a read) and nothing in the body detaches or
    replaces it (``h = h.detach()``, ``h.detach_()``, ``h = model.init_hidden()``).
    """
    for function in facts.functions:
        rebinds: dict[str, list[Binding]] = {}
        for binding in function.bindings:
            rebinds.setdefault(binding.key, []).append(binding)
        reported: set[tuple[int, str, int]] = set()
        for binding in function.bindings:
            if not (binding.fed_to_call and binding.value.attached and binding.loop is not None):
                continue
            for loop in binding.loop.enclosing():
                if not loop.is_batch_loop or not loop.outlives_iteration(binding.key):
                    continue
                if reset_by_another_method(facts, loop, binding.key, binding.in_callee):
                    break
                resets = [
                    other
                    for other in rebinds[binding.key]
                    if loop.contains(other.seq) and not other.value.attached and not other.first_value
                ]
                if not loop.has_backward and backwarded_after(function, binding.key, loop):
                    # unrolled within one step and backwarded after the loop (BPTT, A3C rollouts);
                    # the loop around it must still start each rollout afresh
                    continue
                if not loop.has_backward and not loop.per_batch_method:
                    # nothing ever differentiates the chain: a reset at an episode's end
                    # (``if done: h = policy.initial_state()``) bounds it by the episode only
                    resets = [other for other in resets if other.branch_depth <= loop.branch_depth]
                if unrolled_per_outer_iteration(function, binding.key, loop, rebinds[binding.key], facts):
                    break  # MAML's fast weights: an inner loop differentiating only up to the state
                if _unrolled_for_the_caller(facts, function, binding.key, loop, rebinds[binding.key]):
                    break  # a learned optimizer's unroll: the meta-loss it returns is backwarded by the caller
                if _chain_stays_in_the_call(facts, function, binding.key, loop, rebinds[binding.key]):
                    break  # a greedy decoder's hidden state: only its argmax words leave the call
                if "." in binding.key and _differentiable_unroll(function, loop) and _started_in_each_call(function, binding.key, loop, rebinds[binding.key]):
                    break  # ``self._initialize()`` before an unroll taken with create_graph: kept for the meta-gradient, ends with the call (Metattack)
                if fed_back_only_as_data(function, binding.key, loop):
                    break  # greedy decoding: the next input is embedded from an argmax
                # A state a callee updates at several statements needs the fix at each of them.
                place = (id(loop), binding.key, id(binding.node) if binding.in_callee else 0)
                if not resets and place not in reported:
                    reported.add(place)
                    yield loop, binding
                break


def averaged_operand(facts: FileFacts, binding: Binding) -> Optional[Accumulation]:
    """``ema = 0.98 * ema + 0.02 * loss``: the one attached operand a moving average folds in,
    as the accumulation whose fix is also the average's (``loss.item()``)."""
    assign = single_assign(binding.node)
    if binding.in_callee or assign is None or not decays_itself(binding.node, binding.key):
        return None
    derived = binding.function.derived_from({binding.key})
    if derived & set(binding.function.returned_keys) or any(derived & call.mentions for call in binding.function.backwards):
        return None  # the average takes part in a loss or an output: a detached operand would change a gradient
    if lerp_operands(assign.value) is not None:
        return None  # ``avg.lerp(loss, 0.1)`` takes tensors only: no ``loss.item()`` there
    operand = folded_operand(facts, binding.node)
    if operand is None:
        return None
    target = assign.targets[0].target
    return Accumulation(binding.node, binding.seq, binding.loop, binding.function, target, binding.key, "=", operand, facts.values[id(operand)])


def updates_a_slot(binding: Binding) -> bool:
    """The statement that carries the state updates a slot from its own previous value
    (``self._protos[c] = m * self._protos[c] + (1 - m) * mean``)."""
    assign = single_assign(binding.node)
    if assign is None or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Subscript:
        return False
    slot = assign.targets[0].target
    return any(type(node) is cst.Subscript and node.deep_equals(slot) for node in subtree(assign.value))


def folded_operand(facts: FileFacts, statement: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The one operand with a graph that the moving average ``statement`` folds into its target
    (``loss`` in ``ema = 0.98 * ema + 0.02 * loss``; ``torch.mean(et)`` in a helper's
    ``ma_et = (1 - r) * ma_et + r * torch.mean(et)``), or None."""
    assign = single_assign(statement)
    written: Optional[cst.BaseExpression] = assign.targets[0].target if assign is not None and len(assign.targets) == 1 else None
    if type(statement) is cst.AugAssign:
        written = statement.target  # (``self.avg += (1 - d) * (kl - self.avg)``)
    if type(written) is cst.Subscript:
        written = written.value  # (a slot's average: ``Z[idx] = a * Z[idx] + (1 - a) * p``)
    target = dotted(written) if written is not None else None
    if target is None:
        return None
    if type(statement) is cst.AugAssign:
        if not decaying_increment(statement.value, target):
            return None
        folded = statement.value
    elif assign is None or not decays_itself(statement, target):
        return None
    else:
        folded = assign.value
    values = {
        id(leaf): value for leaf in arithmetic_leaves(folded)
        if dotted(leaf) != target and not (type(leaf) is cst.Subscript and dotted(leaf.value) == target)
        and (value := facts.values.get(id(leaf))) is not None
    }
    leaves = [leaf for leaf in arithmetic_leaves(folded) if id(leaf) in values and values[id(leaf)].attached]
    if not leaves:
        # in a helper, what it is given: the one operand computed from a tensor argument
        leaves = [
            leaf for leaf in arithmetic_leaves(folded)
            if id(leaf) in values and values[id(leaf)].params and values[id(leaf)].kind not in (Kind.NUMBER, Kind.NONE)
        ]
    return leaves[0] if len(leaves) == 1 else None


def bounded_by_each_call(facts: FileFacts, loop: Loop, binding: Binding) -> bool:
    """A local state a loop chains (``action, states = take_action(q, S)`` decoding step by step)
    in a function called once per batch, bound anew before the loop at every call and never
    differentiated in it: its chain is one call long, dropped when the call returns, not one
    that grows with training. (With ``retain_graph=True`` or a backward through it, it is not.)"""
    function = binding.function
    key = binding.key
    if "." in key or "[" in key or loop.per_batch_method or loop.over_loader or function.name == "<module>":
        return False
    if binding.in_callee or binding.loop is None or not any(enclosing is loop for enclosing in binding.loop.enclosing()):
        return False  # (only a state the loop's own function binds: another module's loop counts its own way)
    if not any(enclosing.has_backward or enclosing.has_optimizer_step for enclosing in loop.enclosing()):
        return False  # (a sampling or rollout loop that never trains: grad left on is the leak, TLK103's "no_grad")
    if not per_batch_calls(facts, function):
        return False
    fresh = [
        other for other in function.bindings
        if other.key == key and other.seq < loop.start and not loop.contains(other.seq) and other.branch_depth <= loop.branch_depth
    ]
    if not fresh:
        return False
    reached = function.derived_from({key})
    return not any(
        loop.contains(call.seq) and (call.retain_graph is not None or reached & (call.mentions | call.output_mentions))
        for call in function.backwards
    )


def carried_where_fixed(facts: FileFacts) -> Iterator[tuple[Loop, Binding]]:
    """``carried_state``, with each state another module's helper carries from what it is
    given, the project's only call of it, reported in that helper (by its module's lint:
    ``_carried_for_importers``) rather than at the call, as for what a helper keeps."""
    externals = facts.externals
    by_products = {id(item.binding) for item in returned_by_products(facts)}
    for loop, binding in carried_state(facts):
        if binding.helper and externals is not None and helper_fixing(externals, binding.helper):
            continue
        if id(binding) in by_products:
            continue  # a running mean of what a helper hands back beside the loss: TLK101 at its return
        yield loop, binding
    yield from _carried_for_importers(facts)


def _carried_for_importers(facts: FileFacts) -> Iterator[tuple[Loop, Binding]]:
    """A helper of this file that carries what it is given in one place (``self.gap = m *
    self.gap + (1 - m) * (a - b)``), called once in the whole project, by another module, in a
    loop: the carry, reported at the helper's statement."""
    externals = facts.externals
    if externals is None or not externals.path:
        return
    carries: dict[str, tuple[Function, Effect, cst.CSTNode]] = {}
    for function in facts.functions:
        for effect in function.summary.effects:
            statement = function.effect_nodes.get(id(effect))
            if (
                statement is not None and effect.where == function.name
                and (effect.kind == "carry" or effect.kind == "accumulate" and effect.method == DECAYING_SUM)
                and (effect.value.params and keeps_in_one_place(function.summary, effect) or carries_what_it_computes(effect))
            ):
                carries.setdefault(f"{externals.path}:{function.summary.key}", (function, effect, statement))
    reported: set[int] = set()
    for key in sorted(carries):
        if not externals.fixed_in_helper(key):
            continue
        helper, effect, statement = carries[key]
        for importer in _importers_reaching(externals, key):
            for loop, binding in carried_state(importer):
                if not binding.helper or helper_fixing(externals, binding.helper) != key or id(statement) in reported:
                    continue
                reported.add(id(statement))
                yield loop, replace(
                    binding, node=statement, function=helper, key=_named_target(helper, effect.target), in_callee=helper.name, helper="",
                    via=_given_by(externals, helper, importer, binding.function),
                )


def _importers_reaching(externals: Externals, key: str) -> list[FileFacts]:
    """The analyses of the modules whose loops may reach the helper ``key`` of this file: those
    calling it, and those importing them (``train.py`` calling ``agent.step``, which calls it)."""
    return [*externals.importers_calling(key), *externals.importers_one_further(key)]


def _given_by(externals: Externals, helper: Function, importer: FileFacts, caller: Function) -> str:
    """``Logger.log is given it by train.py's main every iteration``."""
    return f"{helper.name} is given it by {_caller(externals, importer, caller)} every iteration"


def _caller(externals: Externals, importer: FileFacts, caller: Function) -> str:
    """``train.py's main``."""
    path = importer.externals.path if importer.externals else ""
    return f"{externals.shown(path)}'s {caller.name}"


def _named_target(function: Function, target: str) -> str:
    """``target`` for an effect on ``arg0`` (``arg0.weight``): the parameter's own name."""
    head, dot, rest = target.partition(".")
    parameters = function.summary.parameters  # (``arg<i>`` counts ``self``, as the walk names them)
    if head.startswith("arg") and head[3:].isdigit() and int(head[3:]) < len(parameters):
        return parameters[int(head[3:])] + dot + rest
    return target


def _differentiable_unroll(function: Function, loop: Loop) -> bool:
    """The loop takes ``autograd.grad(..., create_graph=True)``: the chain it builds is meant to
    be differentiated through (an unrolled inner training), not waste."""
    return any(call.create_graph is not None and call.kind == "grad" and loop.contains(call.seq) for call in function.backwards)


def _started_in_each_call(function: Function, key: str, loop: Loop, rebinds: list[Binding]) -> bool:
    """A loop of a function (not nested in another of its loops, no optimizer step inside) whose
    state is a local started in the call before the loop: however long the chain it builds, it
    ends with the call."""
    if loop.has_optimizer_step or loop.parent is not None or isinstance(function.node, cst.Module):
        return False
    if "." in key:
        # an attribute outlives the call: only a fresh start before the loop (``self._initialize()``
        # giving ``self.weights`` new leaves) bounds its chain by the call
        return any(other.seq < loop.start and not other.value.attached and not other.first_value for other in rebinds)
    return any(
        other.seq < loop.start and (not other.value.attached or (key not in other.mentions and not other.fed_to_call))
        for other in rebinds
    )


def _started_from_what_it_is_given(function: Function, key: str, loop: Loop, rebinds: list[Binding]) -> bool:
    """A parameter the loop rebinds from itself and nothing rebinds before the loop (a PGD
    attack's ``x_adv = x_adv + step * grad.sign()``): each call's chain starts from the argument;
    a caller that hands the result back in carries it, and its own loop reports that."""
    return (
        "." not in key and key in function.summary.parameters and loop.parent is None
        and not any(other.seq < loop.start for other in rebinds)
    )


def _chain_stays_in_the_call(facts: FileFacts, function: Function, key: str, loop: Loop, rebinds: list[Binding]) -> bool:
    """A local state started in the call before a loop of its own (not a pass over batches:
    no optimizer step, no backward, no loader), of which nothing leaves the call: not returned,
    not stored, not summed into anything (a decoder's ``h = cell(inp, h)`` returning only
    ``torch.stack(words)`` of argmax tokens), in a function a training step calls (a caller
    whose result is backwarded: JOUST's dialogue rollout). The chain is freed when the call
    ends; in inference code (no training caller) the graph is waste, and TLK103 says no_grad."""
    if "." in key or loop.has_optimizer_step or loop.has_backward or loop.over_loader or loop.per_batch_method:
        return False
    evidence = facts.evidence
    if evidence is None:
        return False
    training = _backwarded_results_closure(facts)
    if not any(callee == function.name and caller in training for callee, caller in evidence.callers):
        return False
    if not _repeats_on_one_batch(function, loop):
        return False  # (a pass over a stream's chunks chains as long as the stream: a leak within the call)
    if not _started_in_each_call(function, key, loop, rebinds):
        return False
    derived = function.derived_from({key})
    returned = function.returns
    holds_no_graph = returned.detached or (returned.elements is not None and all(element.detached for element in returned.elements))
    if derived & function.returned_keys and not holds_no_graph:
        return False  # (what it returns, argmax tokens, is computed from the chain but holds none of it)
    if any(event.key in derived or derived & mentions(event.value_node) or event.value.attached for event in _held_events(function)):
        return False  # (anything attached kept, however the analysis links it to the state)
    return not derived & function.backward_mentions


def _unrolled_for_the_caller(facts: FileFacts, function: Function, key: str, loop: Loop, rebinds: list[Binding]) -> bool:
    """A loop of a function that unrolls a state started afresh in each call (truncated BPTT of
    a meta-loss): the state never outlives the call, and the function returns what it took part
    in to callers that backward it. Stepping an optimizer inside the unroll would differentiate
    through weights changed since, so such a loop is no unroll."""
    if loop.has_optimizer_step or loop.parent is not None or isinstance(function.node, cst.Module):
        return False
    if not (_started_in_each_call(function, key, loop, rebinds) or _started_from_what_it_is_given(function, key, loop, rebinds)):
        # (the state must start in the call: a local computed before the loop from other values,
        # ``h = start.detach() + proj(obs)``, starts here; a parameter from what each call gives)
        return False
    evidence = facts.evidence
    name = function.name
    # (through callers that return it on: ``entries`` -> ``relative_error`` -> the loop's backward)
    backwarded = evidence is not None and name in _backwarded_results_closure(facts) or name in facts.backwarded_by_importers
    return (backwarded or _result_feeds_a_backward(facts, name) or name in _results_of_trained_forwards(facts)) and key in function.returned_keys


def _result_feeds_a_backward(facts: FileFacts, name: str) -> bool:
    """A caller binds what ``name`` returns to a value that flows into its backward (MAML's
    ``fast = self.adapt(x_s, y_s)``, whose target loss is stacked into the meta-loss)."""
    evidence, observations = facts.evidence, facts.observations
    if evidence is None or observations is None:
        return False
    return any(
        callee_name == name and (scope_of(caller, key), key) in evidence.feeds_backward
        for caller, key, _callee, resolved, callee_name, _given in observations.call_results
        if resolved and key is not None
    )


def fed_back_only_as_data(function: Function, key: str, loop: Loop) -> bool:
    """Whether ``key``'s value at the end of an iteration is computed from its value at the
    start, but only through values without a graph: ``_, word = logits.max(1);
    step = embed(word).unsqueeze(1)`` gives each step's input a graph of its own (the
    embedding's), so nothing chains the iterations together."""
    inside = bindings_by_key([binding for binding in function.bindings if loop.contains(binding.seq)])
    if key not in inside:
        return False
    last = max(inside[key], key=lambda binding: binding.seq)

    def reaches_the_start(through: Callable[[Binding], bool]) -> bool:
        """A backward slice from the last binding of ``key`` within one iteration: does it read
        ``key`` before the iteration rebinds it, through bindings ``through`` accepts?"""
        pending, seen = [last], set()
        while pending:
            binding = pending.pop()
            if id(binding) in seen or not through(binding):
                continue
            seen.add(id(binding))
            for name in binding.mentions:
                reaching = reaching_binding(inside, name, binding.seq)
                if reaching is not None:
                    pending.append(reaching)
                elif name == key:
                    return True
        return False

    return reaches_the_start(lambda binding: True) and not reaches_the_start(lambda binding: binding.value.attached)


def backwarded_after(function: Function, key: str, loop: Loop) -> bool:
    """Whether a backward after ``loop`` differentiates what ``key`` took part in."""
    later = [call for call in function.backwards if call.seq > loop.end]
    if not later:
        return False
    derived = function.derived_from({key})
    return any(derived & call.mentions for call in later)


def unrolled_per_outer_iteration(
    function: Function, key: str, loop: Loop, rebinds: list[Binding], facts: Optional[FileFacts] = None
) -> bool:
    """An inner loop that unrolls one forward computation over its steps (MAML's fast weights).

    The state starts afresh before the loop (inside the enclosing loop, when there is one), so
    its chain spans this loop's steps only; every backward in the loop is
    ``torch.autograd.grad(..., inputs)`` with the state among its inputs, which stops at the
    state and never runs through the chain built before it; and a backward after the loop
    differentiates what the state became (the meta-loss), which is what the chain is kept for.
    """
    if not loop.has_backward:
        return False
    fresh_before = any(
        # (without graph, or made anew from something else: ``fast_weights = [p - lr * g for g, p
        # in zip(grad, net.parameters())]``, the first step of each task's unroll)
        other.seq < loop.start and (not other.value.attached or key not in other.mentions and not other.fed_to_call)
        and (loop.parent is None or loop.parent.contains(other.seq))
        for other in rebinds
    )
    parent = loop.parent
    if not fresh_before and parent is not None:
        # or made afresh at the end of every outer iteration (``params = stop_gradient(params)``
        # after the meta-step), having started without graph before the outer loop
        fresh_before = any(
            other.seq > loop.end and parent.contains(other.seq) and not other.value.attached and other.branch_depth == parent.branch_depth
            for other in rebinds
        ) and any(other.seq < parent.start and not other.value.attached for other in rebinds)
    if not fresh_before:
        return False
    inside = [call for call in function.backwards if loop.contains(call.seq)]
    derived = function.derived_from({key})
    # (a grad with respect to the parameters is the first step, taken apart while the state still
    # is the parameters, only beside grads with respect to the state; a backward that nothing of
    # the state reaches is another unroll's, LOLA's two agents looking ahead side by side)
    if not inside or not all(
        (call.kind == "grad" and (key in _grad_inputs(call) or _grad_wrt_parameters(call))) or key in _helper_grad_inputs(call)
        or not derived & call.mentions
        for call in inside
    ) or not any(key in _grad_inputs(call) or key in _helper_grad_inputs(call) for call in inside):
        return False  # a backward through the chain (or one in a helper that differentiates it)
    return backwarded_after(function, key, loop) or _handed_to_a_later_helper_that_backwards(function, key, loop) or (
        facts is not None and _left_for_another_functions_backward(facts, function, {key})
    )


def _left_for_another_functions_backward(facts: FileFacts, function: Function, keys: set[str]) -> bool:
    """What the state becomes leaves through an attribute of the function's object or of an
    object it is given, which another function of the file backwards (FederatedScope's
    ``ctx.loss_batch`` set by the forward hook from the adapted weights, backwarded by the
    backward hook)."""
    owners = {"self", *function.summary.parameters}
    return any(
        "." in derived and derived.split(".", 1)[0] in owners and backwarded_elsewhere(facts, derived, function)
        for derived in function.derived_from(keys)
    )


def _handed_to_a_later_helper_that_backwards(function: Function, key: str, loop: Loop) -> bool:
    """After the unroll, the state is given to a helper that runs a backward (LOLA's
    ``agent.out_lookahead(theta_, values_)``, whose loss reaches the state through a rollout
    memory the summary does not follow): the meta-step the chain is built for."""
    return any(
        call.kind == "call" and call.seq > loop.end and any(key in mentions(arg.value) for arg in call.node.args)
        for call in function.backwards
        if isinstance(call.node, cst.Call)
    )


def _helper_grad_inputs(call: BackwardCall) -> set[str]:
    """For the call of a helper whose every backward is ``autograd.grad`` with respect to some of
    its parameters (``inner_opt.step(loss, params)``), the names the call passes there."""
    if call.kind != "call":
        return set()
    return set().union(*(mentions(argument) for argument in grad_inputs_given(call)))


def _grad_wrt_parameters(call: BackwardCall) -> bool:
    """``torch.autograd.grad(loss, self.parameters(), create_graph=True)``: the first inner step,
    taken while the fast weights still are the parameters."""
    inputs = _grad_inputs_node(call)
    return inputs is not None and is_parameters_call(inputs)


def _grad_inputs(call: BackwardCall) -> set[str]:
    """The names ``torch.autograd.grad(outputs, inputs)`` differentiates with respect to."""
    inputs = _grad_inputs_node(call)
    return mentions(inputs) if inputs is not None else set()


def _grad_inputs_node(call: BackwardCall) -> Optional[cst.BaseExpression]:
    """The ``inputs`` argument of ``torch.autograd.grad(outputs, inputs)``."""
    return grad_inputs_argument(call.node) if type(call.node) is cst.Call else None


def loops_with_carried_state(facts: FileFacts) -> dict[int, Binding]:
    return {id(loop): binding for loop, binding in carried_state(facts)}


def retained_for_a_guarded_backward(call: BackwardCall) -> bool:
    """``loss.backward(retain_graph=self.enable_fdist)`` then ``if self.enable_fdist:
    feat_loss.backward()``: a switch that retains the graph exactly when a later backward of
    the function runs, which the code says is the one that needs it."""
    argument = call.retain_graph
    flag = dotted(argument.value) if argument is not None else None
    node = call.function.node
    if flag is None or flag in ("True", "False") or type(node) is not cst.FunctionDef:
        return False
    later = {id(other.node) for other in call.function.backwards if other.seq > call.seq}
    for statement in subtree(node):
        if type(statement) is cst.If and flag in mentions(statement.test):
            if any(id(inner) in later for inner in subtree(statement.body)):
                return True
    return False


def retained_over_carried_state(
    facts: FileFacts, pairs: Optional[list[tuple[Loop, Binding]]] = None
) -> Iterator[tuple[BackwardCall, Binding]]:
    """Each ``retain_graph=...`` backward with the carried state it papers over (TLK202's
    finding; TLK103 leaves that state to it: one leak, one place to read about it); ``pairs``:
    ``carried_state(facts)`` when the caller has it already."""
    carried = {id(loop): binding for loop, binding in (carried_state(facts) if pairs is None else pairs)}
    for function in facts.functions:
        for call in function.backwards:
            if call.retain_graph is None:
                continue
            binding = carried_into(call, carried, facts) or stored_into_the_backwarded(call, facts) or summed_into_the_backwarded(call, facts)
            if binding is not None and not _needed_by_a_later_retaining_backward(call, facts):
                yield call, binding


def _needed_by_a_later_retaining_backward(call: BackwardCall, facts: FileFacts) -> bool:
    """``pinball.backward(retain_graph=True); penalty.backward(retain_graph=True)`` through one
    graph: the first retain is needed by the second backward; the last one papers over the state."""
    later = _later_in_iteration(call, call.loop)
    return any(other.retain_graph is not None for other in later) and _a_later_backward_shares_graph(call, call.loop, facts)


def _later_in_iteration(call: BackwardCall, loop: Optional[Loop]) -> list[BackwardCall]:
    """The backwards after ``call`` in the same iteration of the outermost loop around ``loop``
    (in a per-batch helper with no loop of its own, ``loop`` None: the call's run is the iteration)."""
    outermost = list(loop.enclosing())[-1] if loop is not None else None
    return [other for other in call.function.backwards if other.seq > call.seq and (outermost is None or outermost.contains(other.seq))]


def _a_later_backward_shares_graph(call: BackwardCall, loop: Optional[Loop], facts: Optional[FileFacts]) -> bool:
    """A later backward of the iteration differentiates a common attached value with ``call``
    (``D(fake.detach())`` then a fresh ``D(fake)`` shares nothing); the batch does not count."""
    later = _later_in_iteration(call, loop)
    if not later:
        return False
    function = call.function
    data = {target for enclosing in loop.enclosing() for target in enclosing.loop_targets} if loop is not None else set()
    if loop is not None and loop.per_batch_method and loop.node is function.node and facts is not None:
        # a method run once per batch (``train_step(real_a, real_b)``): its parameters are
        # the batch, unless a caller passes a value that records a graph
        data |= _data_parameters(function, per_batch_calls(facts, function))
    return _later_backward_shares_graph(function, call, later, data, facts)


def papered_by_a_retain(facts: FileFacts) -> Callable[[Binding], bool]:
    """Whether a carried state is one a ``retain_graph=True`` papers over (TLK202 reports it
    there; TLK103 and TLK301 leave it): by statement (``(self.h0, self.c0) = state`` carries
    both, the retain papers over both), and for a state a per-batch helper's retain papers
    over on its object (``self.model.hist``), the one the object's method carries (``self.hist``,
    seen from a loop as ``trainer.model.hist``)."""
    retained = [binding for _, binding in retained_over_carried_state(facts)]
    statements = {id(binding.node) for binding in retained}
    on_objects = {binding.key.rsplit(".", 1)[-1] for binding in retained if binding.key.startswith("self.") and binding.key.count(".") > 1}

    def papered(binding: Binding) -> bool:
        if id(binding.node) in statements or binding.retained_in:
            return True  # (``retained_in``: the other module's helper that retains reports it)
        return "." in binding.key and binding.key.rsplit(".", 1)[-1] in on_objects and (binding.in_callee != "" or binding.key.startswith("self."))

    return papered


def stored_into_the_backwarded(call: BackwardCall, facts: FileFacts) -> Optional[Binding]:
    """What the loop around ``call`` stores every iteration into something kept across
    iterations (``bank[:n] = feats``; ``xbm.enqueue_dequeue(feats)`` writing ``self.feats``) and
    then differentiates through: each backward reaches the graphs of the iterations before,
    which only ``retain_graph=True`` keeps alive (without it the second iteration raises), so
    the store is a carried state the retain papers over, as a state the loop rebinds is. (The
    store is no TLK102 finding: its value is backwarded.)"""
    function = call.function
    held: Optional[set[int]] = None
    for event, loop in _kept_across_iterations_of(call, facts, function.stores):
        if event.method == "[]=" and not _index_changes_per_iteration(facts, event, loop):
            continue  # one slot overwritten: one earlier graph, not a growing chain
        owner = event.key.rsplit(".", 1)[0]
        sources = {event.key} | ({owner} if owner not in ("self", "cls") else set())
        if not function.derived_from(sources) & (call.mentions | call.output_mentions):
            continue
        if held is None:  # (a store TLK102 reports, here or in its helper: its fix ends the growth, the retain is then TLK201's)
            held = {id(kept) for kept, _ in _held(facts, False, as_importer=True)}
        if id(event) in held:
            continue
        return _as_binding(event, loop)
    return None


def _kept_across_iterations_of(call: BackwardCall, facts: FileFacts, events: Iterable[HeldKind]) -> Iterator[tuple[HeldKind, Loop]]:
    """Of ``events`` (a function's stores or sums), those kept across the iterations of a loop
    around ``call`` (not emptied by it), with that loop: what its later iterations may reach."""
    if call.loop is None:
        return
    enclosing = list(call.loop.enclosing())
    for event in events:
        if event.value.double_backward:
            continue
        loop = leaking_loop(event, facts)
        if loop is not None and loop in enclosing and not _emptied_every_iteration(call.function, event, loop):
            yield event, loop


def _as_binding(event: Held, loop: Loop) -> Binding:
    """A store or a sum, as the carried state it is when a later backward goes through it."""
    return Binding(event.node, event.seq, loop, event.function, event.key, event.value, frozenset(), via=event.via, in_callee=event.in_callee)


def differentiates_what_it_keeps(call: BackwardCall, facts: FileFacts) -> bool:
    """``call`` differentiates something read back from an object its function stores graphs
    into (DER++: ``self.buffer.add_data(logits=outputs)`` after ``buf_logits =
    self.buffer.get_data(...)`` fed the loss): the next iteration's backward may go through
    this one's graph, so its ``retain_graph=True`` is not known to be unneeded."""
    function = call.function
    owners = {event.key.rsplit(".", 1)[0] for event in function.stores if event.value.attached and not event.value.double_backward}
    owners -= {"self", "cls"}
    if not owners:
        return False
    sources = function.sources_of(call.mentions | call.output_mentions)
    # (read back through a member of the object, ``self.buffer.get_data(...)``; calling the
    # object itself, a loss function keeping records, reads nothing it kept)
    members = {source for owner in owners for source in sources if source.startswith(owner + ".")}
    if not members or not isinstance(function.node, cst.FunctionDef):
        return bool(members)
    # (a member whose every call here gives no graph, ``balancer.weights()`` returning
    # ``w.detach()``, hands nothing back)
    calls = [node for node in subtree(function.node) if type(node) is cst.Call and dotted(node.func) in members]
    return not calls or any(facts.values.get(id(node)) is None or not facts.values[id(node)].detached for node in calls)


def summed_into_the_backwarded(call: BackwardCall, facts: FileFacts) -> Optional[Binding]:
    """A sum the loop around ``call`` keeps across iterations (``self.reg_loss = self.reg_loss +
    reg``, DeepCTR's regulariser) and differentiates every iteration: each backward reaches the
    graphs of all the iterations before, which only ``retain_graph=True`` keeps alive (without
    it the second iteration raises), so the sum is a carried state the retain papers over."""
    function = call.function
    for event, loop in _kept_across_iterations_of(call, facts, function.accumulations):
        if event.seq < call.seq and function.derived_from({event.key}) & (call.mentions | call.output_mentions):
            return _as_binding(event, loop)
    return None


def carried_into(call: BackwardCall, carried: dict[int, Binding], facts: Optional[FileFacts] = None) -> Optional[Binding]:
    """The carried state of a loop around ``call``, if any; with ``facts``, also for a helper
    called once per batch (``step(x)`` from ``fit``'s loop) that runs a forward."""
    if call.loop is None:
        if facts is None or not per_batch_calls(facts, call.function):
            return None
        if call.function.summary.runs_forward:
            found = _carried_by_a_forward(carried) or _carried_by_the_helper(call, carried)
            if found is not None:
                return found
        return _carried_on_its_object(call, facts) or _carried_by_the_callers_loop(call, carried, facts)
    for loop in call.loop.enclosing():
        if id(loop) in carried:
            binding = carried[id(loop)]
            if _outside_what_is_backwarded(call, binding):
                return None
            return binding
    if any(
        # (or the per-batch method itself, ``train_step`` running the model's forward, whose
        # loop is another module's runner)
        loop.has_forward and (not loop.per_batch_method or loop.node is call.function.node and not call.function.name.endswith("forward"))
        for loop in call.loop.enclosing()
    ):
        return _carried_by_a_forward(carried)
    return None


def _carried_by_the_callers_loop(call: BackwardCall, carried: dict[int, Binding], facts: FileFacts) -> Optional[Binding]:
    """A helper that backwards only what it is given (a ``backward(self, loss)`` hook, called
    as ``module.backward(loss)`` in ``fit``'s loop): the state that loop carries is the one
    its ``retain_graph=True`` papers over, as if the backward were written in the loop."""
    given = {mention.split(".", 1)[0] for mention in call.mentions}
    if not given or not given <= set(call.function.summary.parameters[1:]) | {"True", "False"}:
        return None
    for site in per_batch_calls(facts, call.function):
        loops = list(site.loop.enclosing()) if site.loop is not None else []
        for loop in loops:
            if id(loop) in carried:
                return carried[id(loop)]
        # (or a method of the same object run in that loop, ``module.training_step(batch)``
        # updating ``self.prototypes``, whose own run is the iteration it carries across)
        for binding in carried.values():
            if binding.function.cls is None or binding.function.cls != call.function.cls:
                continue
            if binding.in_callee and not binding.in_callee.endswith(".forward") and binding.key not in binding.function.returned_keys:
                # a statistic a helper keeps beside the loss (``self.model.kld_ema`` in
                # ``loss_function``), which the method's result is not computed from
                continue
            if any(other.loop is not None and other.loop in loops for other in per_batch_calls(facts, binding.function)):
                return binding
    return None


def _outside_what_is_backwarded(call: BackwardCall, binding: Binding) -> bool:
    """A state the loop's own function carries (``tracker.gap``, updated from this step's
    losses) that nothing the backward differentiates was computed from: the retained graph
    does not reach it, so ``retain_graph=True`` hides no second backward through it."""
    if binding.function is not call.function:
        return False
    # (a state a callee keeps on an object, ``model.h`` in ``Model.forward``, reaches what the
    # object computes: its owner is a source too)
    owner = binding.key.rsplit(".", 1)[0]
    sources = {binding.key, owner}
    if binding.in_callee.endswith(".forward") and binding.key.startswith("self."):
        sources.add("self")  # (the module's own forward carries it: ``loss = self(x)`` is computed from it)
    derived = call.function.derived_from(sources)
    return not (derived & (call.mentions | call.output_mentions))


def _carried_on_its_object(call: BackwardCall, facts: FileFacts) -> Optional[Binding]:
    """A state the per-batch helper around ``call`` carries on its object, through what it
    calls (``self.model.bpr_loss(...)`` in ``BPRLoss.stageOne``, the model's
    ``_update_history`` carrying ``hist_emb``) or in another method run per batch too
    (``inner_step`` updating ``self.fast_weights`` that ``meta_step`` backwards through), when
    what it backwards is computed from it: the object outlives the call, so the state is
    carried from batch to batch."""
    function = call.function
    methods = [function, *(other for other in facts.functions if function.cls is not None and other.cls == function.cls and other is not function)]
    for method in methods:
        carried = {effect.target for effect in method.summary.effects if effect.kind == "carry" and effect.target.startswith("self.")}
        for binding in reversed(method.bindings):
            if binding.key not in carried or not binding.value.attached:
                continue
            owner = binding.key.rsplit(".", 1)[0]
            sources = {binding.key} | ({owner} if owner != "self" else set())
            if function.derived_from(sources) & (call.mentions | call.output_mentions):
                return binding
    return None


def _carried_by_the_helper(call: BackwardCall, carried: dict[int, Binding]) -> Optional[Binding]:
    """A state the per-batch helper around ``call`` carries itself (``pred, self.level =
    self.model(chunk, self.level)`` in ``train_batch``), when what it backwards is computed
    from it."""
    for binding in carried.values():
        if binding.in_callee != call.function.name and binding.function is not call.function:
            continue
        if call.function.derived_from({binding.key}) & (call.mentions | call.output_mentions):
            return binding
    return None


def _carried_by_a_forward(carried: dict[int, Binding]) -> Optional[Binding]:
    """A state a module class of the file carries in its forward: what ``retain_graph=True``
    papers over when a loop (or a per-batch helper) runs a model the file does not name the
    class of."""
    for binding in carried.values():
        scope = binding.loop
        if scope is not None and scope.per_batch_method and type(scope.node) is cst.FunctionDef and scope.node.name.value == "forward":
            return binding
    return None


def statement_text(facts: FileFacts, node: cst.CSTNode, limit: int = 72) -> str:
    """One line of source for a message: ``total_loss += loss``."""
    text = " ".join(facts.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def item_fix(facts: FileFacts, node: cst.BaseExpression) -> str:
    """``loss.item()`` for ``loss``, ``(a * b).item()`` for ``a * b``."""
    text = statement_text(facts, node, limit=48)
    if type(node) is cst.Name or type(node) is cst.Attribute or type(node) is cst.Subscript or type(node) is cst.Call:
        return text
    return f"({text})"


def per_batch_calls(facts: FileFacts, function: Function) -> list[CallSite]:
    """The calls of ``function`` that run once per batch: in a loop over batches, in a
    comprehension, or in a function that is itself called per batch (transitively)."""
    if not _top_level_or_method(facts, function):
        return []  # a closure (``hessp`` returned by a step) may be called any number of times
    sites = _per_batch_sites(facts, function.summary.key)
    externals = facts.externals
    if sites or externals is None or not externals.path:
        return sites
    # Called from another module of the project (``discriminator_step`` of losses.py in
    # train.py's loop): that module's loops decide, as this file's would.
    for importer in externals.importer_facts():
        sites.extend(_per_batch_sites(importer, f"{externals.path}:{function.summary.key}", importers_too=True))
    return sites


def per_batch_sites(facts: FileFacts, callee: str) -> list[CallSite]:
    """The calls of ``callee`` in this file that run once per batch (no importers asked)."""
    return _per_batch_sites(facts, callee)


def _per_batch_sites(facts: FileFacts, callee: str, *, importers_too: bool = False) -> list[CallSite]:
    by_callee: dict[str, list[CallSite]] = {}
    for site in facts.call_sites:
        by_callee.setdefault(site.callee, []).append(site)
    sites = by_callee.get(callee, [])
    found = [site for site in sites if _runs_per_batch(site, by_callee, set())]
    externals = facts.externals
    if found or not importers_too or externals is None or not externals.path:
        return found
    # The caller is itself called per batch from a third module (``optimize`` of utils.py in
    # sac.py's ``update_parameters``, called in main.py's loop): one module further, no more.
    importers = externals.importer_facts()
    return [
        site for site in sites
        if site.function.summary.key != "<module>"
        and any(_per_batch_sites(importer, f"{externals.path}:{site.function.summary.key}") for importer in importers)
    ]


def _top_level_or_method(facts: FileFacts, function: Function) -> bool:
    for statement in facts.module.body:
        if statement is function.node:
            return True
        if type(statement) is cst.ClassDef and type(statement.body) is cst.IndentedBlock:
            if any(member is function.node for member in statement.body.body):
                return True
    return False


def _runs_per_batch(site: CallSite, by_callee: dict[str, list[CallSite]], seen: set[str]) -> bool:
    if site.repeated or (site.loop is not None and any(loop.is_batch_loop for loop in site.loop.enclosing())):
        return True
    caller = site.function.summary.key
    if caller in seen:
        return False
    seen.add(caller)
    return any(_runs_per_batch(other, by_callee, seen) for other in by_callee.get(caller, []))


def attached_attributes(facts: FileFacts, cls: Optional[str]) -> set[str]:
    """``self.<attribute>`` keys some method of ``cls`` binds to an attached value."""
    if cls is None:
        return set()
    return {
        binding.key
        for function in facts.functions
        if function.cls == cls
        for binding in function.bindings
        if binding.key.startswith("self.") and binding.key.count(".") == 1 and binding.value.attached
    }


def helper_graph_reused(facts: FileFacts, call: BackwardCall, sites: list[CallSite]) -> bool:
    """Whether a later backward can need the graph a per-batch helper's backward retains: one
    later in the helper, or one its callers run after calling it that differentiates an
    attached attribute this one does (``backward_D`` on ``self.fake_B.detach()`` does not)."""
    function = call.function
    if not call.output_mentions:
        return True
    passed = set(call.output_mentions) & _graph_parameters(function, sites)
    given = (function.sources_of(set(call.output_mentions), data_only=True) | set(call.output_mentions)) & (set(function.summary.parameters) - {"self"})
    if given and any(site.loop is not None and not (site.loop.has_forward or site.loop.over_loader or site.loop.per_batch_method) for site in sites):
        # called again and again within one step on what the step computed before (Sophia's
        # Hutchinson estimate per parameter of one loss's double-backward graph): the next call
        # goes through the same graph
        return True
    if passed:
        # It differentiates what its callers passed (``calculate_adaptive_weight(nll_loss,
        # g_loss)``): their graph, needed when they backward it (or a graph sharing a value
        # with it) afterwards.
        return any(_caller_reuses_passed_graph(facts, site) for site in sites)
    later_here = [other for other in function.backwards if other.seq > call.seq]
    if later_here:
        return _later_backward_shares_graph(function, call, later_here, _data_parameters(function, sites), facts)
    attached = attached_attributes(facts, function.cls)
    differentiated = function.sources_of(set(call.output_mentions), data_only=True) | set(call.output_mentions)
    mine = {key for key in differentiated if key in attached}
    if not mine and function.summary.runs_forward and not any(key in attached for key in function.derived_from(differentiated)):
        # a graph the helper builds afresh from its own forward, kept in no attribute: a later
        # backward of a caller reaches it only through what the helper returns to it
        returns = function.returns
        holds_graph = returns.attached or any(element.attached for element in returns.elements or ())
        return holds_graph and _result_backwarded(facts, function)
    # what the helper binds itself before its backward: a graph built afresh at every call
    fresh = {binding.key for binding in function.bindings if binding.seq < call.seq}
    for site in sites:
        for other in site.function.backwards:
            if other.seq <= site.seq or (site.loop is not None and not site.loop.contains(other.seq)):
                continue
            if id(other.node) == site.call_id and mine and not mine - fresh:
                # the same call, run again (a critic loop): it differentiates what it builds anew
                continue
            if other.callee is not None:
                theirs = set(other.callee.backward_sources)
            elif other.output_mentions:
                caller = site.function
                theirs = caller.sources_of(set(other.output_mentions), data_only=True) | set(other.output_mentions)
            else:
                return True
            if mine & theirs or not mine:
                return True
    return False


def _caller_reuses_passed_graph(facts: FileFacts, site: CallSite) -> bool:
    """Whether the caller at ``site`` can backward again through the graph it passed to a helper
    that backwards it: a later backward of the caller (in the same iteration) differentiates
    a value sharing an attached value with what it passed (``optimize(opt_q, q_loss)`` then
    ``optimize(opt_pi, pi_loss)`` on separate networks share none), or the caller returns
    such a value. What the analysis cannot trace counts as a reuse."""
    caller = site.function
    passing = [b for b in caller.backwards if b.kind == "call" and b.callee is not None and b.callee.key == site.callee]
    if not passing or type(caller.node) is not cst.FunctionDef:
        return True
    detached = _only_detached(caller)
    # what can carry a graph: a name the caller binds to one, or an attribute some method does
    carriers = {b.key for b in caller.bindings if b.value.records_graph} | attached_attributes(facts, caller.cls)

    def graph_of(keys: set[str]) -> set[str]:
        return _owners(caller.sources_of(keys, data_only=True, stop=detached)) & carriers

    returned = graph_of(set().union(*(mentions(r.value, through_detach=False) for r in own_returns(caller.node) if r.value is not None)))
    if returned and not _result_backwarded(facts, caller):
        returned = set()  # returned for logging or a running sum (TLK101's business), never backwarded
    for given in passing:
        mine = graph_of(set(given.output_mentions))
        if mine & returned:
            return True
        if given.loop is not None:
            # a value built before the caller's loop (even one it cannot classify), passed again
            # on the loop's next turn: CG's Hessian-vector products on one gradient graph
            # (``.grad`` after ``backward(create_graph=True)`` included: its bindings look detached)
            passed = _owners(caller.sources_of(set(given.output_mentions), data_only=True)) & {
                # (a configuration dict of numbers, ``config["act_weight"] * loss_act``, holds none;
                # nor does the object whose method is called, ``model.update(loss)``, when its
                # class keeps no graph in its attributes)
                b.key for b in caller.bindings if b.value.kind not in HOLDS_NO_GRAPH and not (b.value.kind is Kind.CONTAINER and b.value.detached)
                and not (b.value.kind in (Kind.INSTANCE, Kind.MODULE) and b.value.cls is not None and not attached_attributes(facts, b.value.cls))
            }
            if passed - {b.key for b in caller.bindings if given.loop.contains(b.seq)}:
                return True
        outermost = list(given.loop.enclosing())[-1] if given.loop is not None else None
        for other in caller.backwards:
            if other.seq <= given.seq or (outermost is not None and not outermost.contains(other.seq)):
                continue
            if not other.output_mentions:
                return True
            theirs = graph_of(set(other.output_mentions)) | (set(other.callee.backward_sources) if other.callee is not None else set())
            if mine & theirs:
                return True
    return False


def _result_backwarded(facts: FileFacts, function: Function) -> bool:
    """Whether a caller may backward what ``function`` returns, by the evidence of the file that
    defines it (``facts`` or, for a function of a module importing ``facts``'s file, that
    module's analysis) and of the modules importing that file. True unless some caller is
    seen and none backwards it: a ``forward`` (called implicitly), a function called from
    nowhere the analysis sees, or a file not at hand may be backwarded anywhere."""
    if function.name.rsplit(".", 1)[-1] in ("forward", "__call__"):
        return True
    owners = [facts] if function in facts.functions else []
    if not owners and facts.externals is not None:
        owners = [importer for importer in facts.externals.importer_facts() if function in importer.functions]
    if not owners or owners[0].evidence is None:
        return True
    owner = owners[0]
    names = {function.name, function.summary.key}
    if names & owner.evidence.backwarded_results or any(name in owner.backwarded_by_importers for name in names):
        return True
    called_here = bool(names & owner.evidence.called)
    externals = owner.externals
    called_by_importers = externals is not None and bool(externals.path) and any(
        site.callee == f"{externals.path}:{function.summary.key}" for importer in externals.importer_facts() for site in importer.call_sites
    )
    return not (called_here or called_by_importers)


def _only_detached(function: Function) -> set[str]:
    """The names ``function`` binds only to values without graph."""
    return {b.key for b in function.bindings if b.value.detached} - {b.key for b in function.bindings if not b.value.detached}


def _graph_parameters(function: Function, sites: list[CallSite]) -> set[str]:
    """The parameters of a per-batch helper that some call site binds to a value recording a graph."""
    carrying = set().union(*(site.graph_arguments for site in sites)) if sites else set()
    return {name for index, name in enumerate(function.summary.parameters) if index in carrying and name != "self"}


def _call_sites_of(facts: FileFacts, function: Function) -> list[CallSite]:
    """The calls of ``function`` in the file."""
    return [site for site in facts.call_sites if site.callee == function.summary.key]


def _data_parameters(function: Function, sites: list[CallSite]) -> set[str]:
    """The parameters of a per-batch helper that no call site binds to a value recording a
    graph (the batch, numbers, indices): sharing them shares no graph."""
    carrying = set().union(*(site.graph_arguments for site in sites)) if sites else set()
    return {name for index, name in enumerate(function.summary.parameters) if index not in carrying and name != "self"}


def _later_backward_shares_graph(
    function: Function, call: BackwardCall, later: list[BackwardCall], data: set[str], facts: Optional[FileFacts] = None
) -> bool:
    """Whether one of the ``later`` backwards of ``function`` can differentiate the graph
    ``call`` retains: both differentiate a common value that carries a graph. A later call
    the analysis cannot trace counts as a use; shared inputs that carry no graph (``data``,
    values bound only to detached ones, the module's constants such as ``BATCH = 32``) do not."""
    detached = _only_detached(function)
    if facts is not None:
        detached |= _module_constants(facts) - {binding.key for binding in function.bindings}
    mine = _owners(function.sources_of(set(call.output_mentions), data_only=True) | set(call.output_mentions))
    together = _unpacked_together(function)
    scope = list(call.loop.enclosing())[-1] if call.loop is not None else None
    my_versions = _versions_reached(function, call.output_mentions, call.seq, scope)
    batch = {target for loop in call.loop.enclosing() for target in loop.loop_targets} if call.loop is not None else set()
    for other in later:
        if other.kind == "call" or not other.output_mentions:
            return True
        theirs = _owners(function.sources_of(set(other.output_mentions), data_only=True) | set(other.output_mentions))
        shared = (mine & theirs) - detached - data - {"self"}  # (``self`` holds graphs only in ``self.x`` keys)
        if shared:
            # (a name rebound between the two, ``crit_fake_pred = crit(fake.detach())`` for the
            # critic, then ``crit_fake_pred = crit(fake_2)`` for the generator: two values)
            their_versions = _versions_reached(function, other.output_mentions, other.seq, scope)
            if not any(name in my_versions and name in their_versions for name in shared):
                return True  # (reached only through flows no binding records: assume one value)
            if any(
                _one_graph_value(function, name, version, scope, batch, facts)
                for name in shared for version in my_versions.get(name, set()) & their_versions.get(name, set())
            ):
                return True
        if any(mine & group and theirs & group for group in together):
            # ``class_output, domain_output = my_net(x)``: two outputs of one forward share its graph
            return True
    return False


def _versions_reached(function: Function, keys: Iterable[str], seq: int, scope: Optional[Loop]) -> dict[str, set[int]]:
    """The values (by the ``seq`` of the binding that made them) each name has in what ``keys``
    hold at ``seq``, following the bindings back: ``fake`` is the generator's output of this
    step, not also the one the name held earlier in the iteration. A name not bound in the
    iteration of ``scope`` (the function's run when None) before the point it is read has the
    version -1 (the value from before). Flows no binding records (a store, an in-place update)
    are followed by name, at the same point."""
    by_key: dict[str, list[Binding]] = {}
    explained: dict[str, set[str]] = {}
    for binding in function.bindings:
        by_key.setdefault(binding.key, []).append(binding)
        explained.setdefault(binding.key, set()).update(binding.mentions)
    reverse: dict[str, set[str]] = {}
    for source, targets in function.flows_to.items():
        for target in targets:
            reverse.setdefault(target, set()).add(source)
    reached: dict[str, set[int]] = {}
    seen: set[tuple[str, int]] = set()
    stack = [(key, seq) for key in keys]
    while stack:
        name, before = stack.pop()
        if (name, before) in seen:
            continue
        seen.add((name, before))
        candidates = [
            binding for binding in by_key.get(name, ()) if binding.seq < before and (scope is None or scope.contains(binding.seq))
        ]
        versions = reached.setdefault(name, set())
        if not candidates:
            versions.add(-1)
        else:
            # the latest binding, and earlier ones while it is only conditional
            shallowest = min(binding.branch_depth for binding in candidates)
            for binding in sorted(candidates, key=lambda b: b.seq, reverse=True):
                versions.add(binding.seq)
                stack.extend((mention, binding.seq) for mention in binding.mentions)
                if binding.keeps_history or binding.fed_to_call:
                    stack.append((name, binding.seq))
                if binding.branch_depth <= shallowest:
                    break
        stack.extend((source, before) for source in reverse.get(name, set()) - explained.get(name, set()))
    return reached


def _one_graph_value(
    function: Function, name: str, version: int, scope: Optional[Loop], batch: set[str], facts: Optional[FileFacts]
) -> bool:
    """Whether the value ``name`` has at ``version`` (``_versions_reached``), which two backwards
    both differentiate through, may carry a graph: a binding not known to carry none nor made
    only from the batch (``real_data = x``); from before the iteration, a name attached on
    entry, an object's attribute, a state the loop carries, or a parameter some call of the
    file gives a graph (``args``, a setting, is none)."""
    if version >= 0:
        return any(
            binding.seq == version and not binding.value.detached and not (binding.mentions and binding.mentions <= batch)
            for binding in function.bindings if binding.key == name
        )
    if scope is None or name in scope.attached_on_entry:
        return True
    if any(binding.key == name and scope.contains(binding.seq) and binding.value.attached for binding in function.bindings):
        return True  # carried from the iteration before
    if name.startswith("self."):
        # an attribute holds a graph unless the function set it before the loop without one
        # (``self._n_continuous = n_continuous`` in ``fit``)
        before = [binding for binding in function.bindings if binding.key == name and binding.seq < scope.start]
        return not before or any(not binding.value.detached and binding.value.kind is not Kind.UNKNOWN for binding in before)
    parameters = function.summary.parameters
    if name not in parameters:
        return False  # bound before the loop without a graph, or a module's global
    return facts is None or name in _graph_parameters(function, _call_sites_of(facts, function))


def _unpacked_together(function: Function) -> list[set[str]]:
    """The names each statement binds together from one attached call's result
    (``class_output, domain_output = my_net(input_data=s_img)``)."""
    groups: dict[int, set[str]] = {}
    for binding in function.bindings:
        node = binding.node
        if type(node) is cst.Assign and binding.value.attached and type(node.value) is cst.Call and any(
            type(target.target) in (cst.Tuple, cst.List) for target in node.targets
        ):
            groups.setdefault(id(node), set()).add(binding.key)
    return [group for group in groups.values() if len(group) > 1]


def later_backward(function: Function, seq: int) -> bool:
    """Whether another backward or ``autograd.grad`` follows ``seq`` in the function."""
    return any(other.seq > seq for other in function.backwards)


def other_backward_in_loop(function: Function, seq: int, loop: Loop) -> bool:
    """Whether another backward runs anywhere in the outermost loop around ``loop``."""
    outermost = list(loop.enclosing())[-1]
    return any(other.seq != seq and outermost.contains(other.seq) for other in function.backwards)


def graph_reused(call: BackwardCall, loop: Loop, facts: Optional[FileFacts] = None, ignored: frozenset[str] = frozenset()) -> bool:
    """Whether another backward can still need the graph ``call`` differentiates.

    True when a later backward follows in the same iteration, when the differentiated
    tensor was built before the loop, or when it depends on a value carried over from the
    previous iteration (truncated BPTT keeps a graph across several steps on purpose).
    Values built before the loop named in ``ignored`` are not counted as needing it.
    """
    function = call.function
    if _differentiates_its_element(call, loop):
        return True  # ``for loss in losses``: each iteration differentiates one graph built before the loop
    if _a_later_backward_shares_graph(call, loop, facts):
        return True
    sources = function.sources_of(set(call.output_mentions))
    in_loop = [b for b in function.bindings if loop.contains(b.seq)]
    # A state rebound to a detached value each iteration (``h = h.detach()``) links nothing.
    reset = {b.key for b in in_loop if not b.value.attached and b.branch_depth == loop.branch_depth}
    if (sources & loop.attached_on_entry) - reset - ignored:
        return True  # part of the graph was built before the loop, for every iteration to use
    rebound = {b.key for b in in_loop}
    # (``scaler.scale(loss).backward()``: the scaler, an optimizer or a module built before the
    # loop is no graph)
    graph_names = {b.key for b in function.bindings if b.value.kind not in HOLDS_NO_GRAPH}
    # (or from the caller: ``grad(dlt_dw, w, grad_outputs=v, retain_graph=True)`` over the
    # terms of a Neumann series, ``dlt_dw`` a parameter)
    if len(call.output_mentions) == 1:
        graph_names |= {name.lstrip("*") for name in function.summary.parameters if name not in ("self", "cls")}
    if any(name in graph_names and name not in rebound for name in call.output_mentions):
        return True  # the differentiated tensor itself comes from before the loop
    if facts is not None and (sources - rebound) & _graph_parameters(function, _call_sites_of(facts, function)):
        return True  # computed from what a caller's forward gives, every iteration
    carried = {b.key for b in in_loop if b.value.attached} - reset
    if loop.per_batch_method and loop.node is function.node and facts is not None:
        # a per-batch method's parameter rebound from itself (``rays_o, rays_d = self.poses(i,
        # rays_o, rays_d)``) is this batch's, unless a call gives it a graph (a hidden state)
        carried -= _data_parameters(function, per_batch_calls(facts, function))
    # A graph-attached value read before it is rebound links this graph to the next iteration's
    # (truncated BPTT keeps a graph across several steps on purpose).
    return any(loop.first_access.get(key) == "read" for key in sources & carried)


def unstepped_pre_loop_graph(call: BackwardCall, loop: Loop) -> frozenset[str]:
    """The values built before the loop, with a graph, that the differentiated tensor is
    computed from, when no optimizer the function builds before the loop steps anything they
    were computed from (style targets ``vgg(style)`` while the optimizer steps only the image
    ``Adam([target])``): the backward through them feeds no update, and ``retain_graph=True``
    only avoids the error of differentiating their freed graph again. Empty otherwise."""
    function = call.function
    optimizers = [b for b in function.bindings if b.value.kind is Kind.OPTIMIZER]
    if not optimizers or any(loop.contains(b.seq) or b.seq > loop.start for b in optimizers):
        return frozenset()
    sources = function.sources_of(set(call.output_mentions))
    in_loop = [b for b in function.bindings if loop.contains(b.seq)]
    reset = {b.key for b in in_loop if not b.value.attached and b.branch_depth == loop.branch_depth}
    before = (sources & loop.attached_on_entry) - reset
    bound_before = {b.key for b in function.bindings if b.seq < loop.start and b.value.attached}
    if not before or not before <= bound_before:
        return frozenset()  # (one the caller gives may be what its own optimizer steps through)
    # What the optimizers are given (``target``, ``vgg.parameters``), not what that was made
    # from: a leaf made by ``content.clone().requires_grad_()`` sends no gradient to ``content``.
    stepped = {name for optimizer in optimizers for name in optimizer.mentions if not name.startswith("torch")}
    upstream = function.sources_of(before)
    if not stepped or any(u == s or u.startswith(s + ".") or s.startswith(u + ".") for u in upstream for s in stepped):
        return frozenset()
    return frozenset(before)


def _differentiates_its_element(call: BackwardCall, loop: Loop) -> bool:
    """A ``for`` loop that runs no forward and differentiates the element it iterates
    (``for loss in losses: loss.backward(...)``): the graphs were built before the loop."""
    return type(loop.node) is cst.For and not loop.has_forward and bool(set(call.output_mentions) & loop.loop_targets)


def last_of_losses_retains(facts: FileFacts, call: BackwardCall) -> bool:
    """``for loss in losses: loss.backward(retain_graph=True)``: every loss but the last needs
    the shared graph, and the last retains it too, although no backward after the loop (in the
    function, or in the iteration around it) goes through it: the graph's saved tensors stay
    alive until ``losses`` is released."""
    loop, function = call.loop, call.function
    if loop is None or type(loop.node) is not cst.For or not _differentiates_its_element(call, loop):
        return False
    iterated = loop.node.iter
    if type(iterated) is cst.Call and type(iterated.func) is cst.Name and iterated.func.value == "enumerate" and iterated.args:
        iterated = iterated.args[0].value  # ``for i, loss in enumerate(losses)``
    if dotted(iterated) is None:
        return False  # not a loop over a container of tensors built before it
    if any(other is not call and loop.contains(other.seq) for other in function.backwards):
        return False  # another backward in the loop: the retained graph may be its
    around = [outer for outer in loop.enclosing() if outer is not loop]
    later = [
        other for other in function.backwards
        if other.seq > loop.end and (not around or around[0].contains(other.seq) or around[0].per_batch_method)
    ]
    data = {target for enclosing in around for target in enclosing.loop_targets}
    sites = per_batch_calls(facts, function)
    if sites or any(outer.per_batch_method and outer.node is function.node for outer in around):
        data |= _data_parameters(function, sites)  # a per-batch helper's parameters are the batch
    if later and _later_backward_shares_graph(function, call, later, data, facts):
        return False
    given = _graph_parameters(function, sites)
    if given and function.sources_of(set(call.output_mentions), data_only=True) & given and any(
        other.seq > site.seq and (site.loop is None or site.loop.contains(other.seq)) for site in sites for other in site.function.backwards
    ):
        return False  # the losses are its caller's, who backwards again after the call (their sum)
    # a helper retaining for its caller: only where it returns no graph to a caller
    returns = function.summary.returns
    return not (returns.attached or any(element.attached for element in returns.elements or ()))


def sums_into_itself(binding: Binding) -> bool:
    """The binding adds to the value it replaces (``self.total = self.total + g.norm()``,
    ``total += g``): a running sum of what it is given, not a state computed afresh from it."""
    node = binding.node
    statement = node.body[0] if type(node) is cst.SimpleStatementLine and node.body else node
    if type(statement) is cst.AugAssign:
        return type(statement.operator) is cst.AddAssign or type(statement.operator) is cst.SubtractAssign
    if type(statement) is cst.Assign and len(statement.targets) == 1:
        target = statement.targets[0].target
        value = statement.value
        if type(value) is cst.ListComp and value.for_in.inner_for_in is None:
            # ``h = [v + (1 - damp) * h_e - hv / scale for v, h_e, hv in zip(v, h, hvs)]``: each
            # entry adds to (a multiple of) the entry it replaces
            entries = zipped_with(value.for_in, dotted(target) or binding.key)
            return any(
                type(term) is cst.Name and term.value in entries
                or type(term) is cst.BinaryOperation and type(term.operator) is cst.Multiply
                and any(type(side) is cst.Name and side.value in entries for side in (term.left, term.right))
                for term in additive_terms(value.elt)
            )
        return any(term.deep_equals(target) for term in additive_terms(value))
    return False


def _module_constants(facts: FileFacts) -> set[str]:
    """Module-level names bound only to values without graph (``BATCH, LR = 32, 1e-3``)."""
    return {key for function in facts.functions if function.name == "<module>" for key in _only_detached(function)}


def _owners(keys: set[str]) -> set[str]:
    """``out`` for ``out.logits`` and ``out.hidden_states`` (both parts of one output);
    ``self.encoder_out`` for ``self.encoder_out.last``."""
    return {".".join(key.split(".")[: 2 if key.startswith("self.") else 1]) for key in keys} | keys


def differentiated_again(call: BackwardCall, facts: Optional[FileFacts] = None) -> bool:
    """Whether what ``call`` returns reaches a later backward, a return, or leaves the function
    (through an attribute of an object another function of the file backwards through:
    ``ctx.loss_batch`` set in a forward hook, backwarded in the backward hook)."""
    function = call.function
    if type(call.statement) is cst.Return:
        return True
    derived = function.derived_from(function.bound_by(call.statement))
    later = set().union(*(other.mentions for other in function.backwards if other is not call))
    if derived & (later | function.consumed):
        return True
    return facts is not None and _left_for_another_functions_backward(facts, function, function.bound_by(call.statement))

def detach_statement(binding: Binding, key: str) -> Optional[str]:
    """The statement that detaches the carried state ``key`` (``h = h.detach()``, each element
    of a tuple); None when what it holds is not known."""
    kind = state_kind(binding)
    # (a state the function differentiates with respect to, ``autograd.grad(loss, self.fast_weights)``,
    # must stay a leaf that requires grad once detached)
    detach = ".detach().requires_grad_()" if any(binding.key in _grad_inputs(call) for call in binding.function.backwards) else ".detach()"
    if kind is Kind.TUPLE:
        return f"{key} = tuple(t{detach} for t in {key})"
    if kind is Kind.CONTAINER:
        return f"{key} = [t{detach} for t in {key}]"
    if kind is Kind.TENSOR:
        return f"{key} = {key}{detach}"
    return None


def state_kind(binding: Binding) -> Kind:
    """What the carried state is, from every value the function gives it (``h = torch.zeros(...)``
    before the loop makes it a tensor even where a model's output rebinds it)."""
    others = [other for other in binding.function.bindings if other.key == binding.key]
    kinds = {other.value.kind for other in others}
    if Kind.TUPLE in kinds:
        return Kind.TUPLE
    if kinds == {Kind.CONTAINER} and all(
        (assign := single_assign(other.node)) is not None and type(assign.value) in (cst.List, cst.ListComp) for other in others
    ):
        return Kind.CONTAINER  # a list of tensors (fast weights), never a dict
    if written_by_slot(binding):
        return Kind.UNKNOWN  # ``stats[k] = ...``: what a slot holds is not what ``stats`` is (a dict has no .detach())
    if Kind.TENSOR in kinds and kinds <= {Kind.TENSOR, Kind.UNKNOWN}:
        return Kind.TENSOR
    return Kind.UNKNOWN


def written_by_slot(binding: Binding) -> bool:
    """Some statement of the function writes one entry of the state (``stats[k] = ...``): the
    state is a container whose shape the bindings (of its entries) do not show."""
    for other in binding.function.bindings:
        assign = single_assign(other.node) if other.key == binding.key else None
        if assign is not None and any(type(t.target) is cst.Subscript and dotted(t.target.value) == binding.key for t in assign.targets):
            return True
    return False


@dataclass(frozen=True)
class ByProduct:
    """A value a helper of the file hands back beside the loss, attached, that the caller
    keeps across iterations without backwarding it: YOLO's ``loss, loss_items =
    compute_loss(pred, targets)`` folded into ``mloss = (mloss * i + loss_items) / (i + 1)``,
    where ``ComputeLoss.__call__`` returns ``torch.cat((lbox, lobj, lcls))`` undetached. The fix
    is the helper's return (upstream: ``.detach()``), reported there as a running sum."""

    loop: Loop
    binding: Binding
    helper: Function
    element: cst.BaseExpression
    name: str


def returned_by_products(facts: FileFacts) -> list[ByProduct]:
    """The by-products the file's carried states keep."""
    return [item for loop, binding in carried_state(facts) if (item := _by_product(facts, loop, binding)) is not None]


def _by_product(facts: FileFacts, loop: Loop, binding: Binding) -> Optional[ByProduct]:
    function = binding.function
    if type(binding.node) is not cst.Assign or binding.via or binding.in_callee:
        return None
    operands = data_mentions(binding.node.value) - {binding.key}
    backwarded = function.backward_mentions
    for name in sorted(operands):
        earlier = [b for b in function.bindings if b.key == name and b.seq < binding.seq and loop.contains(b.seq)]
        if not earlier:
            continue
        unpacked = _unpacked_call(max(earlier, key=lambda b: b.seq).node)
        if unpacked is None or name not in unpacked[1]:
            continue
        call, names = unpacked
        index = names.index(name)
        others = {other for other in names if other is not None and other != name}
        # the loss beside it is backwarded here, and nothing computed from it is
        if not others & backwarded or function.derived_from({name}) & backwarded:
            continue
        helper = _called_helper(facts, function, call)
        if helper is None or type(helper.node) is not cst.FunctionDef:
            continue
        element = _returned_element(helper, index, len(names))
        if element is None:
            continue
        value = facts.values.get(id(element))
        if value is None or not (value.attached or value.params):
            continue  # (computed from what the caller gives, the model's output: attached there)
        return ByProduct(loop, binding, helper, element, name)
    return None


def _called_helper(facts: FileFacts, function: Function, call: cst.Call) -> Optional[Function]:
    """The function of the file ``call`` runs: by its name, a method of ``self``, or the
    ``__call__`` (a module's ``forward``) of an object of a class of the file."""
    func = call.func
    named = _called_function(call, function)
    candidates = [named] if named is not None else []
    held = facts.values.get(id(func))
    if (held is None or not held.cls) and type(func) is cst.Name:
        # ``compute_loss = ComputeLoss(model)`` before the loop
        bound = [b for b in function.bindings if b.key == func.value]
        held = max(bound, key=lambda b: b.seq).value if bound else None
    if held is not None and held.cls:
        candidates += [f"{held.cls}.__call__", f"{held.cls}.forward"]
    by_name = {each.name: each for each in facts.functions}
    return next((by_name[name] for name in candidates if name in by_name), None)


def attached_entry_written(facts: FileFacts, helper: cst.CSTNode, element: cst.CSTNode) -> Optional[cst.Assign]:
    """The one ``name[key] = value`` of ``helper`` writing an attached value into the record
    ``name`` that it returns as ``element``; None when there are none or several."""
    if type(element) is not cst.Name or type(helper) is not cst.FunctionDef:
        return None
    written = [
        statement for statement in iter_statements(helper.body.body)
        if type(statement) is cst.Assign and len(statement.targets) == 1 and type(statement.targets[0].target) is cst.Subscript
        and dotted(statement.targets[0].target.value) == element.value
        and (value := facts.values.get(id(statement.value))) is not None and value.attached
    ]
    return written[0] if len(written) == 1 else None


def record_entry_behind(facts: FileFacts, event: Accumulation) -> Optional[tuple[Function, cst.Assign]]:
    """For a sum of a record a helper of the file returns beside the loss (``loss, info =
    compute_loss(...)`` then ``tot = tot + info``), the helper and its one statement writing an
    attached entry into that record; None otherwise."""
    function = event.function
    name = dotted(event.value_node) if event.value_node is not None else None
    given = facts.values.get(id(event.value_node)) if event.value_node is not None else None
    if name is None or given is None or given.kind not in (Kind.CONTAINER, Kind.INSTANCE):
        return None
    earlier = [b for b in function.bindings if b.key == name and b.seq < event.seq]
    if not earlier:
        return None
    unpacked = _unpacked_call(max(earlier, key=lambda b: b.seq).node)
    if unpacked is None or name not in unpacked[1]:
        return None
    call, names = unpacked
    helper = _called_helper(facts, function, call)
    if helper is None:
        return None
    element = _returned_element(helper, names.index(name), len(names))
    entry = attached_entry_written(facts, helper.node, element) if element is not None else None
    return (helper, entry) if entry is not None else None


def _unpacked_call(statement: cst.CSTNode) -> Optional[tuple[cst.Call, list[Optional[str]]]]:
    """For ``loss, info = compute_loss(...)``, the call and the names its tuple is unpacked
    into (None for a target that is no plain name); None for any other statement."""
    if type(statement) is not cst.Assign or len(statement.targets) != 1 or type(statement.value) is not cst.Call:
        return None
    target = statement.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    return statement.value, [element.value.value if type(element.value) is cst.Name else None for element in target.elements]


def _returned_element(helper: Function, index: int, arity: int) -> Optional[cst.BaseExpression]:
    """The ``index``-th element every tuple ``helper`` returns, when there is one return of a
    tuple of ``arity`` elements and that element is computed there (not a parameter as given)."""
    if not isinstance(helper.node, cst.FunctionDef):
        return None
    returns = [statement for statement in own_returns(helper.node) if statement.value is not None]
    tuples = [statement.value for statement in returns if type(statement.value) is cst.Tuple and len(statement.value.elements) == arity]
    if len(tuples) != 1 or len(returns) != 1:
        return None
    element = tuples[0].elements[index].value
    if type(element) is cst.Name and element.value in helper.summary.parameters:
        return None
    return element
