# Modelled on transformer/__init__.py of jadore801120/attention-is-all-you-need-pytorch, which
# re-exports the package's modules; here through relative imports.
from . import Constants
from .Models import Transformer
from .Optim import ScheduledOptim
from .Translator import Translator
