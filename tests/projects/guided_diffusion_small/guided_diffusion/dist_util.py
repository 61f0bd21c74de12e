"""
Helpers for distributed training (single CPU process here).
"""

import io

import torch as th


def setup_dist():
    """
    Setup a distributed process group (nothing to do for one CPU process).
    """
    return


def get_world_size():
    return 1


def get_rank():
    return 0


def dev():
    """
    Get the device to use for torch.distributed.
    """
    if th.cuda.is_available():
        return th.device("cuda")
    return th.device("cpu")


def load_state_dict(path, **kwargs):
    """
    Load a PyTorch file.
    """
    with open(path, "rb") as f:
        data = f.read()
    return th.load(io.BytesIO(data), **kwargs)


def sync_params(params):
    """
    Synchronize a sequence of Tensors across ranks from rank 0.
    """
    for p in params:
        pass
