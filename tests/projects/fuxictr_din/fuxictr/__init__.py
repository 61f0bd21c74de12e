"""Trimmed copy of the FuxiCTR library layout (reczoo/FuxiCTR) used to train DIN on CPU."""
__version__ = "2.3.7-tiny"
