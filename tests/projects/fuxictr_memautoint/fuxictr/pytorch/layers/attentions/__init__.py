from .dot_product_attention import ScaledDotProductAttention  # noqa: F401
from .multihead_attention import MultiHeadSelfAttention  # noqa: F401
