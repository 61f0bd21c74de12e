# Modelled on dragen1860/MAML-Pytorch (learner.py): a functional network that runs with an
# explicit list of weights, so that the inner loop can adapt copies of them.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, in_features=28 * 28, classes=5):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(classes, in_features))
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, x, weights=None):
        weight, bias = weights if weights is not None else (self.weight, self.bias)
        return F.linear(x.flatten(1), weight, bias)
