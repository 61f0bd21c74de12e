from .loader import SyntheticImageLoader, create_loader
