# Modelled on icefall/checkpoint.py (model averaging; checkpoints kept in memory instead of torch.save)
import copy
from typing import Dict, Optional

import torch
import torch.nn as nn

_SAVED = {}


def save_checkpoint(filename, model: nn.Module, model_avg: Optional[nn.Module] = None, params=None,
                    optimizer=None, scheduler=None, rank: int = 0) -> None:
    if rank != 0:
        return
    checkpoint = {
        "model": copy.deepcopy(model.state_dict()),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "scheduler": scheduler.state_dict() if scheduler is not None else None,
    }
    if model_avg is not None:
        checkpoint["model_avg"] = copy.deepcopy(model_avg.to(torch.float32).state_dict())
    if params:
        for k, v in params.items():
            if k not in checkpoint and isinstance(v, (int, float, str)):
                checkpoint[k] = v
    _SAVED[str(filename)] = checkpoint


def average_state_dict(
    state_dict_1: Dict[str, torch.Tensor],
    state_dict_2: Dict[str, torch.Tensor],
    weight_1: float,
    weight_2: float,
    scaling_factor: float = 1.0,
) -> Dict[str, torch.Tensor]:
    """Average two state_dict with given weights:
    state_dict_1 = (state_dict_1 * weight_1 + state_dict_2 * weight_2)
      * scaling_factor
    It is an in-place operation on state_dict_1 itself.
    """
    # Identify shared parameters. Two parameters are said to be shared
    # if they have the same data_ptr
    uniqued: Dict[int, str] = dict()
    for k, v in state_dict_1.items():
        v_data_ptr = v.data_ptr()
        if v_data_ptr in uniqued:
            continue
        uniqued[v_data_ptr] = k

    uniqued_names = list(uniqued.values())
    for k in uniqued_names:
        v = state_dict_1[k]
        if torch.is_floating_point(v):
            v *= weight_1
            v += state_dict_2[k].to(device=state_dict_1[k].device) * weight_2
            v *= scaling_factor


def update_averaged_model(params, model_cur: nn.Module, model_avg: nn.Module) -> None:
    """Update the averaged model:
    model_avg = model_cur * (average_period / batch_idx_train)
      + model_avg * ((batch_idx_train - average_period) / batch_idx_train)
    """
    weight_cur = params.average_period / params.batch_idx_train
    weight_avg = 1 - weight_cur

    cur = model_cur.state_dict()
    avg = model_avg.state_dict()

    average_state_dict(
        state_dict_1=avg,
        state_dict_2=cur,
        weight_1=weight_avg,
        weight_2=weight_cur,
    )
