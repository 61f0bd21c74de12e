# Modelled on the models/ package of zhouhaoyi/Informer2020 (models/model.py holds Informer);
# this __init__ re-exports the model so that callers write `from models import Informer`.
from .model import Informer

__all__ = ['Informer']
