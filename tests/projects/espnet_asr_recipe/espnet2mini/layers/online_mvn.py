from typing import Tuple

import torch

from espnet2mini.layers.abs_normalize import AbsNormalize
from espnet2mini.nets.nets_utils import make_pad_mask


class OnlineMVN(AbsNormalize):
    """Global MVN whose statistics are estimated while training.

    Replaces GlobalMVN (stats_file from the collect_stats stage) for recipes that skip stage 9:
    mean/var are exponential moving averages of the per-batch feature statistics and every batch,
    train or eval, is normalised with the running values.
    """

    def __init__(self, momentum: float = 0.05, norm_means: bool = True, norm_vars: bool = True,
                 eps: float = 1.0e-20):
        super().__init__()
        self.momentum = momentum
        self.norm_means = norm_means
        self.norm_vars = norm_vars
        self.eps = eps
        self.register_buffer("mean", torch.zeros(0))
        self.register_buffer("var", torch.ones(0))
        self.num_updates = 0

    def extra_repr(self):
        return f"momentum={self.momentum}, norm_means={self.norm_means}, norm_vars={self.norm_vars}"

    def _batch_stats(self, x: torch.Tensor, ilens: torch.Tensor):
        mask = make_pad_mask(ilens, x, 1)
        x = x.masked_fill(mask, 0.0)
        count = (~mask[..., 0]).sum()
        mean = x.sum(dim=(0, 1)) / count
        var = (x.pow(2).sum(dim=(0, 1)) / count) - mean.pow(2)
        return mean, var

    def forward(
        self, x: torch.Tensor, ilens: torch.Tensor = None
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if ilens is None:
            ilens = x.new_full([x.size(0)], x.size(1), dtype=torch.long)
        if self.training:
            mean, var = self._batch_stats(x, ilens)
            if self.num_updates == 0:
                self.mean, self.var = mean, var
            else:
                m = self.momentum
                self.mean = (1 - m) * self.mean + m * mean
                self.var = (1 - m) * self.var + m * var
            self.num_updates += 1

        mask = make_pad_mask(ilens, x, 1)
        if self.norm_means:
            x = x - self.mean
        if self.norm_vars:
            x = x / torch.clamp(self.var, min=self.eps).sqrt()
        x = x.masked_fill(mask, 0.0)
        return x, ilens
