from .base_model import BaseModel, SegDataPreProcessor
from .heads import PrototypeMemory, SegHead
from .segmentor import ProtoSegmentor

__all__ = ['BaseModel', 'SegDataPreProcessor', 'SegHead', 'PrototypeMemory', 'ProtoSegmentor']
