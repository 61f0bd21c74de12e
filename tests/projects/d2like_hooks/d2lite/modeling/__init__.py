from .backbone import SimpleBackbone, build_backbone
from .meta_arch import TinyDetector, build_model
from .regularizers import InputGradientPenalty
