from .model import KGEModel
from .dataloader import TrainDataset, BidirectionalOneShotIterator, make_triples
from .sampler import HardNegativeQueue
from .regularizer import EmbeddingGradPenalty

__all__ = ["KGEModel", "TrainDataset", "BidirectionalOneShotIterator", "make_triples",
           "HardNegativeQueue", "EmbeddingGradPenalty"]
