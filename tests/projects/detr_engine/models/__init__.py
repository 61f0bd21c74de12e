# Re-export as facebookresearch/detr's models/__init__.py does with build_model.
from .detr import build
