"""Thin wrappers so the training loop is the same with or without torch.distributed."""
import torch
from torch import distributed as dist


def get_rank():
    if not dist.is_available() or not dist.is_initialized():
        return 0
    return dist.get_rank()


def get_world_size():
    if not dist.is_available() or not dist.is_initialized():
        return 1
    return dist.get_world_size()


def synchronize():
    if get_world_size() > 1:
        dist.barrier()


def reduce_loss_dict(loss_dict):
    world_size = get_world_size()
    with torch.no_grad():
        keys = sorted(loss_dict.keys())
        losses = torch.stack([loss_dict[k] for k in keys], 0)
        if world_size > 1:
            dist.reduce(losses, dst=0)
            if dist.get_rank() == 0:
                losses /= world_size
        reduced = {k: v for k, v in zip(keys, losses)}  # CLEAN: stacked under torch.no_grad()
    return reduced
