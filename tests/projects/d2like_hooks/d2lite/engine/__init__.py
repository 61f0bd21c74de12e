from .train_loop import *
from .hooks import *

__all__ = [k for k in globals().keys() if not k.startswith("_")]
