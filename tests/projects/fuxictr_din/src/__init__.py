from .DIN import DIN
