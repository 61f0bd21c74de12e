# Modelled on the models/ directory of yanx27/Pointnet_Pointnet2_pytorch, which
# train_classification.py imports by name (importlib.import_module(args.model)); here a package
# whose __init__ re-exports the chosen model's get_model and get_loss.
from .pointnet_cls import get_loss, get_model

__all__ = ['get_model', 'get_loss']
