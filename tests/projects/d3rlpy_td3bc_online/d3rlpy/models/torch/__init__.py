from .policies import ActionOutput, DeterministicPolicy  # noqa: F401
from .q_functions import ContinuousEnsembleQFunctionForwarder, ContinuousMeanQFunction  # noqa: F401
from .regularizers import ActionGradientPenalty  # noqa: F401
from .encoders import VectorEncoder, VectorEncoderWithAction  # noqa: F401
