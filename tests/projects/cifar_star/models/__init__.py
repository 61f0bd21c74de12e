# Modelled on kuangliu/pytorch-cifar: models/__init__.py star-imports every architecture so
# that main.py can write `from models import *`.
from .resnet import *
from .features import *
