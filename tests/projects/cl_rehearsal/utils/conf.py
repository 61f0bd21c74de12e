import random

import numpy as np
import torch


def get_device() -> torch.device:
    return torch.device('cpu')


def set_random_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
