"""Unit tests of the abstract value (``torchleak.analysis.values``): ``join`` (one of several
values), ``combine`` (computed from several), ``substitute`` (a summary's value at a call site),
tuples with per-element values."""

from __future__ import annotations

import pytest

from torchleak.analysis.values import (
    ATTACHED,
    DETACHED,
    DETACHED_TENSOR,
    NONE,
    NUMBER,
    UNKNOWN,
    Kind,
    State,
    Value,
    combine,
    concrete,
    join,
    keyed,
    parameter,
    substitute,
    tensor,
    tuple_of,
)

MODULE = Value(State.DETACHED, Kind.MODULE)


# --------------------------------------------------------------------------- join
class TestJoin:
    def test_identical_values_join_to_themselves(self):
        assert join(ATTACHED, ATTACHED) == ATTACHED
        assert join(NUMBER) is NUMBER

    def test_attached_wins(self):
        assert join(DETACHED_TENSOR, ATTACHED).attached
        assert join(UNKNOWN, ATTACHED).attached

    def test_all_detached_is_detached(self):
        value = join(DETACHED_TENSOR, NUMBER)
        assert value.detached
        assert value.kind is Kind.UNKNOWN  # a tensor or a number: not known which

    def test_detached_and_unknown_is_unknown(self):
        assert join(DETACHED_TENSOR, UNKNOWN).state is State.UNKNOWN

    def test_same_kind_is_kept(self):
        assert join(DETACHED_TENSOR, ATTACHED).kind is Kind.TENSOR

    def test_nothing_is_detached(self):
        assert join() == DETACHED

    def test_tuples_join_element_by_element(self):
        a = tuple_of([ATTACHED, NUMBER])
        b = tuple_of([DETACHED_TENSOR, NUMBER])
        joined = join(a, b)
        assert joined.kind is Kind.TUPLE
        assert joined.element(0).attached
        assert joined.element(1) == NUMBER

    def test_tuples_of_different_lengths_lose_their_shape(self):
        joined = join(tuple_of([ATTACHED]), tuple_of([NUMBER, NUMBER]))
        assert joined.kind is Kind.UNKNOWN and joined.elements is None
        assert joined.attached

    def test_params_are_united(self):
        assert join(parameter(0), parameter(2)).params == frozenset({0, 2})

    def test_class_kept_only_when_shared(self):
        a = Value(State.DETACHED, Kind.INSTANCE, cls="A")
        assert join(a, replace_state(a, State.UNKNOWN)).cls == "A"
        assert join(a, Value(State.DETACHED, Kind.INSTANCE, cls="B")).cls is None


def replace_state(value: Value, state: State) -> Value:
    return Value(state, value.kind, value.double_backward, value.elements, value.cls, value.params)


# --------------------------------------------------------------------------- combine
class TestCombine:
    def test_attached_input_gives_an_attached_tensor(self):
        value = combine(ATTACHED, NUMBER)
        assert value.attached and value.kind is Kind.TENSOR

    def test_numbers_give_a_number(self):
        value = combine(NUMBER, NUMBER)
        assert value.detached and value.kind is Kind.NUMBER

    def test_detached_tensor_and_number_give_a_detached_tensor(self):
        value = combine(DETACHED_TENSOR, NUMBER)
        assert value.detached and value.kind is Kind.TENSOR

    def test_unknown_input_makes_it_unknown(self):
        assert combine(UNKNOWN, NUMBER).state is State.UNKNOWN

    def test_attached_unknown_kind_becomes_a_tensor(self):
        assert combine(Value(State.ATTACHED), NUMBER).kind is Kind.TENSOR

    def test_double_backward_only_from_attached_inputs(self):
        double = tensor(State.ATTACHED, double_backward=True)
        assert combine(double, NUMBER).double_backward
        assert not combine(DETACHED_TENSOR, NUMBER).double_backward

    def test_params_flow_through(self):
        assert combine(parameter(1), NUMBER).params == frozenset({1})

    def test_nothing_is_unknown(self):
        assert combine() == UNKNOWN

    def test_tuple_elements_are_dropped(self):
        assert combine(tuple_of([ATTACHED, NUMBER])).elements is None


# --------------------------------------------------------------------------- tuples and parts
class TestTuples:
    def test_tuple_state_is_attached_if_an_element_is(self):
        assert tuple_of([NUMBER, ATTACHED]).attached
        assert tuple_of([NUMBER, DETACHED_TENSOR]).detached
        assert tuple_of([NUMBER, UNKNOWN]).state is State.UNKNOWN

    def test_empty_tuple_is_detached(self):
        assert tuple_of([]).detached

    def test_element_by_index(self):
        value = tuple_of([ATTACHED, NUMBER])
        assert value.element(0) == ATTACHED
        assert value.element(1) == NUMBER
        assert value.element(-1) == NUMBER

    def test_element_out_of_range_is_unknown(self):
        assert tuple_of([ATTACHED, NUMBER]).element(5) == UNKNOWN

    def test_part_of_a_tuple_joins_its_elements(self):
        assert tuple_of([ATTACHED, NUMBER]).part().attached
        assert tuple_of([NUMBER, NUMBER]).part() == NUMBER

    def test_part_of_an_attached_value_is_attached(self):
        part = ATTACHED.part()
        assert part.attached and part.kind is Kind.UNKNOWN

    def test_part_of_a_detached_value_is_unknown(self):
        # ``x.foo`` of a detached x may be anything: no rule may rely on it.
        assert DETACHED_TENSOR.part().state is State.UNKNOWN

    def test_with_state_detached_drops_elements(self):
        detached = tuple_of([ATTACHED, NUMBER]).with_state(State.DETACHED)
        assert detached.detached and detached.elements is None

    def test_params_of_a_tuple(self):
        assert tuple_of([parameter(0), NUMBER, parameter(3)]).params == frozenset({0, 3})


# --------------------------------------------------------------------------- substitute
class TestSubstitute:
    def test_plain_value_is_unchanged(self):
        assert substitute(ATTACHED, {0: DETACHED_TENSOR}) == ATTACHED
        assert substitute(NUMBER, {0: ATTACHED}) == NUMBER

    def test_attached_argument_makes_it_attached(self):
        value = substitute(combine(parameter(0), NUMBER), {0: ATTACHED})
        assert value.attached and value.kind is Kind.TENSOR
        assert value.params == frozenset()

    def test_detached_argument_makes_it_detached(self):
        assert substitute(parameter(0), {0: DETACHED_TENSOR}).detached

    def test_unknown_argument_stays_unknown(self):
        assert substitute(parameter(0), {0: UNKNOWN}).state is State.UNKNOWN

    def test_missing_argument_stays_unknown(self):
        assert substitute(parameter(1), {0: DETACHED_TENSOR}).state is State.UNKNOWN

    def test_all_arguments_must_be_detached(self):
        both = combine(parameter(0), parameter(1))
        assert substitute(both, {0: NUMBER, 1: ATTACHED}).attached
        assert substitute(both, {0: NUMBER, 1: UNKNOWN}).state is State.UNKNOWN
        assert substitute(both, {0: NUMBER, 1: DETACHED_TENSOR}).detached

    def test_an_attached_summary_value_stays_attached(self):
        value = Value(State.ATTACHED, Kind.TENSOR, params=frozenset({0}))
        assert substitute(value, {0: DETACHED_TENSOR}).attached

    def test_per_element(self):
        returns = tuple_of([combine(parameter(0), NUMBER), DETACHED_TENSOR])
        at_call = substitute(returns, {0: ATTACHED})
        assert at_call.kind is Kind.TUPLE
        assert at_call.attached
        assert at_call.element(0).attached
        assert at_call.element(1).detached
        detached_call = substitute(returns, {0: NUMBER})
        assert detached_call.detached and detached_call.element(0).detached

    def test_double_backward_is_inherited(self):
        double = tensor(State.ATTACHED, double_backward=True)
        assert substitute(parameter(0), {0: double}).double_backward
        assert not substitute(parameter(0), {0: ATTACHED}).double_backward

    def test_class_is_kept(self):
        value = Value(State.UNKNOWN, Kind.INSTANCE, cls="Meter", params=frozenset({0}))
        assert substitute(value, {0: DETACHED}).cls == "Meter"

    def test_symbolic_argument_keeps_the_dependence(self):
        value = substitute(combine(parameter(0), NUMBER), {0: parameter(2)})
        assert value.state is State.UNKNOWN
        assert value.params == frozenset({2})


def test_concrete_drops_params():
    values = concrete([parameter(0), combine(parameter(1), ATTACHED)])
    assert all(value.params == frozenset() for value in values)
    assert values[1].attached


def test_constants():
    assert ATTACHED.attached and ATTACHED.is_tensor
    assert NUMBER.detached and NUMBER.is_number
    assert NONE.detached and NONE.kind is Kind.NONE
    assert MODULE.is_module and not MODULE.attached
    assert UNKNOWN.state is State.UNKNOWN and not UNKNOWN.attached and not UNKNOWN.detached


# --------------------------------------------------------------------------- dicts with literal keys
class TestKeyedDicts:
    def test_each_entry_keeps_its_own_value(self):
        d = keyed({"loss": ATTACHED, "acc": DETACHED_TENSOR})
        assert d.attached and d.kind is Kind.CONTAINER
        assert d.entry("loss").attached
        assert d.entry("acc").detached
        assert d.entry("missing").attached  # any entry's value
        assert d.element(0).attached  # a number is none of its string keys

    def test_replacing_an_entry(self):
        d = keyed({"loss": ATTACHED}).with_entry("loss", NUMBER)
        assert d.detached and d.entry("loss") == NUMBER
        assert keyed({"a": NUMBER}).with_entry("b", ATTACHED).entry("b").attached

    def test_join_with_a_no_grad_copy_keeps_the_entries(self):
        # ``return d`` on one branch, ``{k: v for ...}`` built under no_grad on the other
        joined = join(keyed({"loss": ATTACHED, "acc": DETACHED_TENSOR}), Value(State.DETACHED, Kind.CONTAINER))
        assert joined.keys == ("loss", "acc")
        assert joined.entry("loss").attached and joined.entry("acc").detached

    def test_join_with_an_unknown_dict_is_one_value(self):
        joined = join(keyed({"acc": DETACHED_TENSOR}), Value(State.ATTACHED, Kind.CONTAINER))
        assert joined.keys is None and joined.attached

    def test_dropping_the_elements_drops_the_keys(self):
        assert keyed({"loss": ATTACHED}).with_state(State.DETACHED).keys is None

    def test_a_function_returning_its_dict_argument_returns_its_entries(self):
        given = keyed({"loss": ATTACHED, "acc": NUMBER})
        assert substitute(parameter(0), {0: given}) == given
        assert substitute(join(parameter(0), Value(State.DETACHED, Kind.CONTAINER)), {0: given}).entry("acc") == NUMBER

    def test_summary_values_round_trip_through_json(self):
        import json

        from torchleak.analysis.values import value_from_dict, value_to_dict

        d = keyed({"loss": tensor(State.UNKNOWN, params=frozenset({1})), "acc": NUMBER})
        assert value_from_dict(json.loads(json.dumps(value_to_dict(d)))) == d


# --------------------------------------------------------------------------- a parameter read by key
class TestParameterEntries:
    """A summary's value read from a parameter through literal keys (``state["pred"]``)
    inherits, at a call, the attachment of those entries of the argument only."""

    given = keyed({"pred": ATTACHED, "target": DETACHED_TENSOR})

    def test_an_entry_of_a_parameter_names_its_key(self):
        assert parameter(1).entry("target").via_entries == frozenset({(1, "target")})
        assert substitute(parameter(1).entry("target"), {1: self.given}).detached
        assert substitute(parameter(1).entry("pred"), {1: self.given}).attached

    def test_computing_from_the_entries_keeps_the_keys(self):
        both = combine(DETACHED_TENSOR, parameter(1).entry("target"), parameter(1).entry("target"))
        assert substitute(both, {1: self.given}).detached
        assert substitute(combine(parameter(1).entry("target"), parameter(1).entry("pred")), {1: self.given}).attached

    def test_the_whole_parameter_beside_an_entry_is_inherited_whole(self):
        mixed = combine(parameter(1).entry("target"), parameter(1))
        assert mixed.via_entries == frozenset()
        assert substitute(mixed, {1: self.given}).attached

    def test_an_argument_whose_keys_are_unknown_is_inherited_whole(self):
        assert substitute(parameter(1).entry("target"), {1: Value(State.ATTACHED, Kind.CONTAINER)}).attached

    def test_entries_round_trip_through_json(self):
        import json

        from torchleak.analysis.values import value_from_dict, value_to_dict

        value = combine(DETACHED_TENSOR, parameter(1).entry("target"))
        assert value_from_dict(json.loads(json.dumps(value_to_dict(value)))) == value


def test_a_tuple_with_an_element_still_symbolic_stays_symbolic():
    # ``self.history.append((step, value))`` in a helper, applied where ``value`` is the
    # caller's own parameter: the caller's summary must still depend on it
    stored = tuple_of([parameter(3), parameter(2)])
    at_call = substitute(stored, {2: parameter(1), 3: NUMBER})
    assert at_call.params == frozenset({1})
    assert substitute(at_call, {1: ATTACHED}).attached
