import torch
from torch import nn


class Dice(nn.Module):
    """Data-adaptive activation from the DIN paper (Zhou et al., 2018).

    Unlike nn.BatchNorm1d this keeps its own running statistics so that the
    inference-time gate uses the population mean/variance exactly as in the
    paper's TensorFlow implementation.
    """

    def __init__(self, input_dim, eps=1e-9, momentum=0.01):
        super(Dice, self).__init__()
        self.eps = eps
        self.momentum = momentum
        self.alpha = nn.Parameter(torch.zeros(input_dim))
        self.register_buffer("running_mean", torch.zeros(input_dim))
        self.register_buffer("running_var", torch.ones(input_dim))

    def forward(self, X):
        if self.training:
            mean = X.mean(dim=0)
            var = X.var(dim=0, unbiased=False)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mean.detach()
            self.running_var = (1 - self.momentum) * self.running_var + self.momentum * X.var(dim=0, unbiased=True)  # known-miss: TLK103
        else:
            mean, var = self.running_mean, self.running_var
        p = torch.sigmoid((X - mean) / torch.sqrt(var + self.eps))
        output = p * X + self.alpha * (1 - p) * X
        return output


class GELU(nn.Module):
    def __init__(self):
        super(GELU, self).__init__()

    def forward(self, x):
        return nn.functional.gelu(x, approximate="tanh")
