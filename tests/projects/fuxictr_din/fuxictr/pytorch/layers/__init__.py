from .activations import Dice
from .embeddings import FeatureEmbeddingDict
from .blocks import MLP_Block
from .attentions import DIN_Attention
