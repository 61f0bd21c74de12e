from .feature_embedding import FeatureEmbedding, FeatureEmbeddingDict  # noqa: F401
