from .mtan import MTANet
