# Modelled on rosinality/stylegan2-pytorch (distributed.py): with one process reduce_loss_dict
# returns the dict it was given, so its values keep their graphs; with several it reduces under
# no_grad.
import torch
from torch import distributed as dist


def get_world_size():
    if not dist.is_available() or not dist.is_initialized():
        return 1
    return dist.get_world_size()


def reduce_loss_dict(loss_dict):
    world_size = get_world_size()
    if world_size < 2:
        return loss_dict
    with torch.no_grad():
        keys = sorted(loss_dict.keys())
        losses = torch.stack([loss_dict[k] for k in keys], 0)
        dist.reduce(losses, dst=0)
        if dist.get_rank() == 0:
            losses /= world_size
        return {k: v for k, v in zip(keys, losses)}
