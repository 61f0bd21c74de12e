from .target_attention import DIN_Attention
