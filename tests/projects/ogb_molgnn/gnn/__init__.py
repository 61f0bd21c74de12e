from .model import GNN
from .flag import flag_step

__all__ = ["GNN", "flag_step"]
