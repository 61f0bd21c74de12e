from typing import Dict

import torch


def copy_params_dict(model, copy_grad=False) -> Dict[str, torch.Tensor]:
    """Create a dict {name: detached copy of the parameter (or its grad)}."""
    out = {}
    for k, p in model.named_parameters():
        if copy_grad and p.grad is None:
            continue
        out[k] = (p.grad if copy_grad else p).detach().clone()
    return out


def zerolike_params_dict(model) -> Dict[str, torch.Tensor]:
    return {k: torch.zeros_like(p) for k, p in model.named_parameters()}


def cycle(loader):
    while True:
        for batch in loader:
            yield batch
