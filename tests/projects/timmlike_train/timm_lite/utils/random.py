import random

import torch


def random_seed(seed=42, rank=0):
    torch.manual_seed(seed + rank)
    random.seed(seed + rank)
