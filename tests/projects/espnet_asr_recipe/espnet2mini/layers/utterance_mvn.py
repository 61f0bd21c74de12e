from typing import Tuple

import torch

from espnet2mini.layers.abs_normalize import AbsNormalize
from espnet2mini.nets.nets_utils import make_pad_mask


class UtteranceMVN(AbsNormalize):
    def __init__(self, norm_means: bool = True, norm_vars: bool = False, eps: float = 1.0e-20):
        super().__init__()
        self.norm_means = norm_means
        self.norm_vars = norm_vars
        self.eps = eps

    def extra_repr(self):
        return f"norm_means={self.norm_means}, norm_vars={self.norm_vars}"

    def forward(
        self, x: torch.Tensor, ilens: torch.Tensor = None
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        return utterance_mvn(x, ilens, norm_means=self.norm_means, norm_vars=self.norm_vars,
                             eps=self.eps)


def utterance_mvn(x, ilens=None, norm_means=True, norm_vars=False, eps=1.0e-20):
    """Apply utterance mean and variance normalization (stateless: nothing is kept)."""
    if ilens is None:
        ilens = x.new_full([x.size(0)], x.size(1))
    ilens_ = ilens.to(x.device, x.dtype).view(-1, *[1 for _ in range(x.dim() - 1)])
    if x.requires_grad:
        x = x.masked_fill(make_pad_mask(ilens, x, 1), 0.0)
    else:
        x.masked_fill_(make_pad_mask(ilens, x, 1), 0.0)
    mean = x.sum(dim=1, keepdim=True) / ilens_
    if norm_means:
        x = x - mean
        if norm_vars:
            var = x.pow(2).sum(dim=1, keepdim=True) / ilens_
            std = torch.clamp(var.sqrt(), min=eps)
            x = x / std
        return x, ilens
    else:
        if norm_vars:
            y = x - mean
            y.masked_fill_(make_pad_mask(ilens, y, 1), 0.0)
            var = y.pow(2).sum(dim=1, keepdim=True) / ilens_
            std = torch.clamp(var.sqrt(), min=eps)
            x /= std
        return x, ilens
