from .yolox_base import Exp
