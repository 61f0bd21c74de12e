""" Optimizer Factory (minimal) """
import torch

from .sgdw import SGDW


def param_groups_weight_decay(model, weight_decay=1e-5, no_weight_decay_list=()):
    no_weight_decay_list = set(no_weight_decay_list)
    decay = []
    no_decay = []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in no_weight_decay_list:
            no_decay.append(param)
        else:
            decay.append(param)
    return [
        {'params': no_decay, 'weight_decay': 0.},
        {'params': decay, 'weight_decay': weight_decay}]


def create_optimizer_v2(model, opt='sgdw', lr=None, weight_decay=0., momentum=0.9, **kwargs):
    if weight_decay:
        parameters = param_groups_weight_decay(model, weight_decay)
        weight_decay = 0.
    else:
        parameters = model.parameters()
    opt_lower = opt.lower()
    if opt_lower == 'sgdw':
        optimizer = SGDW(parameters, lr=lr, momentum=momentum, weight_decay=weight_decay, **kwargs)
    elif opt_lower == 'sgd':
        optimizer = torch.optim.SGD(parameters, lr=lr, momentum=momentum, weight_decay=weight_decay, **kwargs)
    elif opt_lower == 'adamw':
        optimizer = torch.optim.AdamW(parameters, lr=lr, weight_decay=weight_decay, **kwargs)
    else:
        raise ValueError(f'Invalid optimizer {opt}')
    return optimizer
