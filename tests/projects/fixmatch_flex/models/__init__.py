# Modelled on kekmodel/FixMatch-pytorch (models/): the backbone and the EMA copy, re-exported
# through relative imports so train.py can write `from models import ...`.
from .ema import ModelEMA
from .wideresnet import build_wideresnet
