import torch


def RSE(pred, true):
    return (torch.sqrt(torch.sum((true - pred) ** 2)) / torch.sqrt(torch.sum((true - true.mean()) ** 2))).item()


def CORR(pred, true):
    u = ((true - true.mean(0)) * (pred - pred.mean(0))).sum(0)
    d = torch.sqrt(((true - true.mean(0)) ** 2 * (pred - pred.mean(0)) ** 2).sum(0))
    return (u / d).mean().item()


def MAE(pred, true):
    return torch.mean(torch.abs(pred - true)).item()


def MSE(pred, true):
    return torch.mean((pred - true) ** 2).item()


def RMSE(pred, true):
    return MSE(pred, true) ** 0.5


def MAPE(pred, true):
    return torch.mean(torch.abs((pred - true) / (true.abs() + 1e-2))).item()


def MSPE(pred, true):
    return torch.mean(torch.square((pred - true) / (true.abs() + 1e-2))).item()


def metric(pred, true):
    pred, true = pred.detach(), true.detach()
    mae = MAE(pred, true)
    mse = MSE(pred, true)
    rmse = RMSE(pred, true)
    mape = MAPE(pred, true)
    mspe = MSPE(pred, true)
    return mae, mse, rmse, mape, mspe


class MetricTracker(object):
    """Element-weighted MAE / MSE of the training forecasts, printed with the epoch summary."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.abs_err = 0.
        self.sq_err = 0.
        self.count = 0

    def update(self, pred, true):
        err = pred - true
        self.abs_err += torch.abs(err).sum()  # known-miss: TLK101
        self.sq_err += float(torch.sum(err.detach() ** 2))
        self.count += err.numel()

    def summary(self):
        n = max(self.count, 1)
        return {'mae': float(self.abs_err) / n, 'mse': self.sq_err / n}
