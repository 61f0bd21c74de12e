from .mlp_block import MLP_Block
