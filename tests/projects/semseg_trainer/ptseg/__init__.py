"""ptseg: a compact semantic segmentation toolbox."""
from .models import get_model
from .loss import get_loss_function
from .loader import get_loader

__all__ = ["get_model", "get_loss_function", "get_loader"]
