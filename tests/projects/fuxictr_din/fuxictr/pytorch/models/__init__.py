from .rank_model import BaseModel
