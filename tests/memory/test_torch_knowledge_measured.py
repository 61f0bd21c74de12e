"""The torch knowledge table's claims that a call's result holds no graph, checked against
torch: every tensor method and ``torch.*`` function the table lists as detaching, called on a
tensor that requires grad, returns something without a ``grad_fn`` (or no tensor at all).
Entries that cannot be called on one float tensor alone are left to the rule examples."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torchleak.analysis import torch_knowledge as vocab  # noqa: E402

#: Calls of the table that need more than one float tensor, or that do not compute from it.
NOT_CALLABLE_ALONE = {"backward", "requires_grad_", "zero_", "fill_", "copy_", "detach_", "sample"}


def _graph_free(result: object) -> bool:
    if isinstance(result, torch.Tensor):
        return result.grad_fn is None
    if isinstance(result, (tuple, list)):
        return all(_graph_free(element) for element in result)
    return True


def _called(call: object, value: "torch.Tensor", name: str) -> object:
    """The call alone, else with a second operand (a comparison, ``multinomial(x, 1)``)."""
    for extra in ((), (value.detach() * 0.5,), (1,)):
        try:
            return call(*extra)  # type: ignore[operator]
        except (TypeError, RuntimeError, ValueError, AttributeError):
            continue
    pytest.skip(f"{name} needs other arguments than one float tensor")


def _leaf() -> "torch.Tensor":
    return torch.rand(4, requires_grad=True) * 1.0 + 0.01  # (a non-leaf with a graph, in [0.01, 1.01))


@pytest.mark.parametrize("method", sorted(vocab.DETACHING_METHODS - NOT_CALLABLE_ALONE))
def test_a_detaching_method_returns_no_graph(method: str) -> None:
    value = _leaf().clamp(max=1.0)
    if method in ("item", "__float__", "__int__", "__bool__"):
        value = value.sum()  # (read as one number)
    result = _called(lambda *args: getattr(value, method)(*args), value, method)
    assert _graph_free(result), f"{method} keeps the graph: {result!r}"


@pytest.mark.parametrize("name", sorted(n for n in vocab.DETACHING_CALLABLES if n.startswith("torch.") and n.count(".") == 1))
def test_a_detaching_torch_function_returns_no_graph(name: str) -> None:
    function = getattr(torch, name.split(".", 1)[1], None)
    if function is None:
        pytest.skip(f"{name} is not in this torch")
    value = _leaf().clamp(max=1.0)
    result = _called(lambda *args: function(value, *args), value, name)
    assert _graph_free(result), f"{name} keeps the graph: {result!r}"


@pytest.mark.parametrize("call", ["torch.bernoulli", "torch.poisson", "Tensor.bernoulli"])
def test_random_draws_that_keep_the_graph_are_not_in_the_table(call: str) -> None:
    # measured: a Bernoulli or Poisson draw from a tensor that requires grad has a grad_fn
    value = _leaf().clamp(max=1.0)
    result = value.bernoulli() if call == "Tensor.bernoulli" else getattr(torch, call.split(".")[1])(value)
    assert result.grad_fn is not None
    assert call not in vocab.DETACHING_CALLABLES and call.rsplit(".", 1)[-1] not in vocab.DETACHING_METHODS
