from .resnet import *
from ._registry import register_model, list_models, model_entrypoint
from ._factory import create_model
