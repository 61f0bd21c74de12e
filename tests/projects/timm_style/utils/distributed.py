# Modelled on timm/utils/distributed.py: an all-reduce of a tensor, averaged over workers.
import torch.distributed as dist


def reduce_tensor(tensor, world_size):
    reduced = tensor.clone()
    dist.all_reduce(reduced, op=dist.ReduceOp.SUM)
    reduced /= world_size
    return reduced
