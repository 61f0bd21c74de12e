from .datasets import SyntheticDetection, collate_fn
from .data_prefetcher import DataPrefetcher
