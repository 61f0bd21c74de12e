from .trlx import train
