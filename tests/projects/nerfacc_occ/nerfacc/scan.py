import torch
from torch import Tensor


def exclusive_sum(inputs: Tensor, indices: Tensor, n_rays: int) -> Tensor:
    """Exclusive cumulative sum along each ray of a packed (ray-sorted) 1-D tensor."""
    inclusive = torch.cumsum(inputs, dim=0)
    exclusive = inclusive - inputs
    counts = torch.bincount(indices, minlength=n_rays)
    starts = torch.cumsum(counts, dim=0) - counts
    return exclusive - exclusive[starts[indices]]
