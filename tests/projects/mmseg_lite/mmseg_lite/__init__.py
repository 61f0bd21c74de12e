# Copyright (c) OpenMMLab-style project layout.
__version__ = '0.1.0'
