from pfrl.experiments.hooks import LinearInterpolationHook  # NOQA
from pfrl.experiments.hooks import StepHook  # NOQA
from pfrl.experiments.train_agent import train_agent  # NOQA
