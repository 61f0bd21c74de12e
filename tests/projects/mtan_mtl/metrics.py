"""Task losses and per-epoch metric buffers."""
import torch
import torch.nn.functional as F


def model_fit(x_pred, x_output, task_type):
    if task_type == "semantic":
        return F.nll_loss(x_pred, x_output)
    mask = (x_output.abs().sum(dim=1, keepdim=True) != 0).float()
    n = mask.sum().clamp(min=1)
    if task_type == "depth":
        return (torch.abs(x_pred - x_output) * mask).sum() / n
    return 1 - (x_pred * x_output * mask).sum() / n


class CostBuffer:
    """avg[epoch, k]: running per-epoch averages for the 12 train / 12 test columns."""

    def __init__(self, total_epoch, n_cols=24):
        self.avg = torch.zeros(total_epoch, n_cols)

    def add(self, epoch, col, value, n_batches):
        self.avg[epoch, col] += value / n_batches

    def row(self, epoch):
        return [round(float(v), 4) for v in self.avg[epoch]]


def pixel_accuracy(x_pred, x_output):
    return (x_pred.argmax(dim=1) == x_output).float().mean()
