# Re-exports as lucidrains/byol-pytorch's byol_pytorch/__init__.py does.
from byol_pytorch.byol_pytorch import BYOL
from byol_pytorch.trainer import BYOLTrainer
