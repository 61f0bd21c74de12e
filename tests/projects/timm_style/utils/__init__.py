# Modelled on huggingface/pytorch-image-models: timm/utils/__init__.py re-exports the helpers
# of its submodules, so that train.py writes `from utils import AverageMeter`.
from .metrics import AverageMeter, accuracy
from .distributed import reduce_tensor
