#
# Simple loss classes selectable with --criter (mse is the default)
#
import torch
import torch.nn as nn


class WeightedMeanAbsolutePercentageError(nn.Module):
    def __init__(self):
        super(WeightedMeanAbsolutePercentageError, self).__init__()

    def forward(self, y_pred, y_true):
        absolute_percentage_errors = torch.abs((y_true - y_pred) / (y_true + 1e-8))
        weighted_errors = absolute_percentage_errors * (torch.abs(y_true) + 1e-8)
        return torch.mean(weighted_errors)


class SymmetricMeanAbsolutePercentageError(nn.Module):
    def __init__(self):
        super(SymmetricMeanAbsolutePercentageError, self).__init__()

    def forward(self, y_pred, y_true):
        denom = (torch.abs(y_true) + torch.abs(y_pred)) / 2 + 1e-8
        return torch.mean(torch.abs(y_true - y_pred) / denom)


class RMSELoss(nn.Module):
    def __init__(self):
        super(RMSELoss, self).__init__()

    def forward(self, y_pred, y_true):
        return torch.sqrt(torch.mean((y_pred - y_true) ** 2))


class HuberLoss(nn.Module):
    def __init__(self, delta=1.0):
        super(HuberLoss, self).__init__()
        self.delta = delta

    def forward(self, y_pred, y_true):
        errors = torch.abs(y_pred - y_true)
        quadratic = torch.clamp(errors, max=self.delta)
        linear = errors - quadratic
        return torch.mean(0.5 * quadratic ** 2 + self.delta * linear)


class PinballLoss(nn.Module):
    def __init__(self, tau=0.5):
        super(PinballLoss, self).__init__()
        self.tau = tau

    def forward(self, y_pred, y_true):
        delta = y_pred - y_true
        loss = torch.max((self.tau - 1) * delta, self.tau * delta)
        return torch.mean(loss)
