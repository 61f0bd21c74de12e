"""
Loss functions for PyTorch (forecasting).
"""
import torch as t
import torch.nn as nn


def divide_no_nan(a, b):
    """
    a/b where the resulted NaN or Inf are replaced by 0.
    """
    result = a / b
    result[result != result] = 0.0
    result[result == float("inf")] = 0.0
    return result


class mape_loss(nn.Module):
    def forward(self, forecast: t.Tensor, target: t.Tensor, mask: t.Tensor = None) -> t.Tensor:
        if mask is None:
            mask = t.ones_like(target)
        weights = divide_no_nan(mask, target)
        return t.mean(t.abs((forecast - target) * weights))


class smape_loss(nn.Module):
    def forward(self, forecast: t.Tensor, target: t.Tensor, mask: t.Tensor = None) -> t.Tensor:
        if mask is None:
            mask = t.ones_like(target)
        return 200 * t.mean(
            divide_no_nan(t.abs(forecast - target), t.abs(forecast.data) + t.abs(target.data)) * mask
        )


class ForecastLoss(nn.Module):
    """MSE with an optional scale-free sMAPE term; returns the total and the parts."""

    def __init__(self, smape_weight=0.0):
        super().__init__()
        self.mse = nn.MSELoss()
        self.smape = smape_loss()
        self.smape_weight = smape_weight

    def forward(self, outputs, batch_y):
        mse = self.mse(outputs, batch_y)
        total = mse
        parts = {"mse": mse}
        if self.smape_weight > 0:
            smape = self.smape(outputs, batch_y)
            total = total + self.smape_weight * smape
            parts["smape"] = smape
        return total, parts
