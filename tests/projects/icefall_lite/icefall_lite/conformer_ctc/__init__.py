from .conformer import Conformer
