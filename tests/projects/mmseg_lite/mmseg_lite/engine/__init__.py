from .custom_hooks import TrainDiceHook
from .hooks import EMAHook, Hook, LoggerHook, RuntimeInfoHook
from .optim_wrapper import OptimWrapper
from .runner import IterBasedTrainLoop, Runner, ValLoop

__all__ = [
    'Hook', 'RuntimeInfoHook', 'LoggerHook', 'EMAHook', 'TrainDiceHook', 'OptimWrapper',
    'Runner', 'IterBasedTrainLoop', 'ValLoop'
]
