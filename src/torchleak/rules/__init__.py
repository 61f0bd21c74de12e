"""Every rule, sorted by code. A test checks that each module in this package is listed."""

from __future__ import annotations

from torchleak.rule import Rule
from torchleak.rules.accumulated_loss import AccumulatedLoss
from torchleak.rules.backward_create_graph import BackwardCreateGraph
from torchleak.rules.carried_state import CarriedState
from torchleak.rules.create_graph_kept import CreateGraphKept
from torchleak.rules.held_across_iterations import HeldAcrossIterations
from torchleak.rules.retain_graph_carried_state import RetainGraphCarriedState
from torchleak.rules.retain_graph_unneeded import RetainGraphUnneeded

ALL_RULES: tuple[type[Rule], ...] = (
    AccumulatedLoss,
    HeldAcrossIterations,
    CarriedState,
    RetainGraphUnneeded,
    RetainGraphCarriedState,
    CreateGraphKept,
    BackwardCreateGraph,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
