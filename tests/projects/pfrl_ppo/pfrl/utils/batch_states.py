import numpy as np
import torch


def _to_recursive(batched, device):
    if isinstance(batched, torch.Tensor):
        return batched.to(device)
    elif isinstance(batched, list):
        return [x.to(device) for x in batched]
    elif isinstance(batched, tuple):
        return tuple(x.to(device) for x in batched)
    else:
        raise TypeError("Unsupported type of data")


def batch_states(states, device, phi):
    """The default method for making batch of observations."""
    features = [phi(s) for s in states]
    collated = torch.as_tensor(np.stack(features))
    return _to_recursive(collated, device)
