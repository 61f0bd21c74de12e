from .base import QLearningAlgoBase, QLearningAlgoImplBase  # noqa: F401
from .explorers import Explorer, NormalNoise, ProportionalNormalNoise  # noqa: F401
from .td3_plus_bc import TD3PlusBC, TD3PlusBCConfig  # noqa: F401
