# Modelled on kekmodel/FixMatch-pytorch (utils/__init__.py re-exports utils/misc.py); the
# threshold and distribution-alignment helpers of FlexMatch/FreeMatch forks live beside it.
from .misc import AverageMeter, accuracy
from .thresholds import DistAlignHistory, SelfAdaptiveThreshold
