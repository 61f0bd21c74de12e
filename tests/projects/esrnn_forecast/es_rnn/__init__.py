from .config import get_config
from .data_loading import SeriesDataset, make_synthetic_series
from .model import ESRNN
from .trainer import ESRNNTrainer

__all__ = ['get_config', 'SeriesDataset', 'make_synthetic_series', 'ESRNN', 'ESRNNTrainer']
