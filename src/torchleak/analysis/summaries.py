"""What a function does, as plain data applied at each call site (no tree nodes, so it can be
compared and cached): its return value as a function of its arguments, and its effects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from torchleak.analysis.values import DETACHED, Value

#: store: appended/inserted/assigned into a container; accumulate: ``+=`` or ``x = x + v``;
#: carry: an attribute rebound from a call that received its previous value (a recurrent
#: state); reset: an attribute rebound to a value with no graph (``self.h = None``).
EffectKind = Literal["store", "accumulate", "carry", "reset"]


@dataclass(frozen=True)
class Effect:
    """One thing a function does to state that outlives the call.

    ``target`` is where the value goes: ``self.<attr>`` (the receiver's attribute),
    ``arg<i>`` (the container passed as parameter i, or ``arg<i>.<attr>``), or a module-level
    name (a global).
    """

    kind: EffectKind
    target: str
    #: The stored value; symbolic (``params``) when it depends on the arguments.
    value: Value
    #: The function it happens in, for messages (``AverageMeter.update``); the statement itself
    #: is in ``Function.effect_nodes``.
    where: str
    #: The method or operator that stores it (``append``, ``+=``, ``[]=``).
    method: str = ""


@dataclass
class Summary:
    """The facts about one function that its callers need."""

    name: str
    returns: Value = DETACHED
    effects: list[Effect] = field(default_factory=list)
    calls_backward: bool = False
    steps_optimizer: bool = False
    runs_forward: bool = False
    no_grad: bool = False
    #: Puts a module in evaluation mode (``model.eval()``): what it computes is not trained on.
    evaluates: bool = False
    #: Parameter names by position (``self`` included), for messages and hook wiring.
    parameters: tuple[str, ...] = ()
