"""Tiny CPU re-implementation of the YOLOX training stack (Megvii-BaseDetection/YOLOX)."""
__version__ = "0.3.0"
