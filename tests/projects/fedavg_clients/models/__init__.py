from .Nets import CNNSmall
from .Update import LocalUpdate
from .Fed import FedAvg, ServerMomentum
from .test import test_img

__all__ = ["CNNSmall", "LocalUpdate", "FedAvg", "ServerMomentum", "test_img"]
