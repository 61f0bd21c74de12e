import torch
import numpy as np


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    return x


def grad_norm(loss, params, create_graph=True):
    """L2 norm of d(loss)/d(params).  Built with create_graph so that it can
    also serve as a gradient-norm penalty (flat-minima regulariser)."""
    params = [p for p in params if p.requires_grad]
    grads = torch.autograd.grad(loss, params, create_graph=create_graph,
                                retain_graph=True, allow_unused=True)
    return torch.sqrt(sum((g * g).sum() for g in grads if g is not None))


def state_dict_cpu(model):
    """snapshot of the weights that does not share memory (or history) with the model"""
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
