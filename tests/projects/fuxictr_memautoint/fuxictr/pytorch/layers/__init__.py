from .embeddings import FeatureEmbedding, FeatureEmbeddingDict  # noqa: F401
from .blocks import MLP_Block  # noqa: F401
from .attentions import MultiHeadSelfAttention, ScaledDotProductAttention  # noqa: F401
