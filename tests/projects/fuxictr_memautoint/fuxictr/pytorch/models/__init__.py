from .rank_model import BaseModel  # noqa: F401
