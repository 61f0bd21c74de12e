import torch
import torch.nn as nn


class RINorm(nn.Module):
    """Reversible Instance Normalization (Kim et al., 2022), as in darts."""

    def __init__(self, input_dim: int, eps=1e-5, affine=True):
        super().__init__()
        self.input_dim = input_dim
        self.eps = eps
        self.affine = affine

        if self.affine:
            self.affine_weight = nn.Parameter(torch.ones(self.input_dim))
            self.affine_bias = nn.Parameter(torch.zeros(self.input_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # at the beginning of `PLForecastingModule.forward()`, `x` has shape
        # (batch_size, input_chunk_length, n_targets).
        calc_dims = tuple(range(1, x.ndim - 1))

        self.mean = torch.mean(x, dim=calc_dims, keepdim=True).detach()
        self.stdev = torch.sqrt(
            torch.var(x, dim=calc_dims, keepdim=True, unbiased=False) + self.eps
        ).detach()

        return self.transform(x)

    def transform(self, x: torch.Tensor) -> torch.Tensor:
        x = x - self.mean
        x = x / self.stdev
        if self.affine:
            x = x * self.affine_weight
            x = x + self.affine_bias
        return x

    def inverse(self, x: torch.Tensor) -> torch.Tensor:
        # x is assumed to be the output of PLForecastingModule.forward(), and has shape
        # (batch_size, output_chunk_length, n_targets, nr_params).
        if self.affine:
            x = x - self.affine_bias.view(self.affine_bias.shape + (1,))
            x = x / (self.affine_weight.view(self.affine_weight.shape + (1,)) + self.eps * self.eps)
        x = x * self.stdev.view(self.stdev.shape + (1,))
        x = x + self.mean.view(self.mean.shape + (1,))
        return x
