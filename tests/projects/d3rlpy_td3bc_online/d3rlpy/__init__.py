from . import algos, dataset, envs, logging  # noqa: F401
from .algos import TD3PlusBCConfig  # noqa: F401

__version__ = "0.0.1"
