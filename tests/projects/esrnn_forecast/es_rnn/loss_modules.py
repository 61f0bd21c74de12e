import torch
import torch.nn as nn


class PinballLoss(nn.Module):
    """Quantile loss; also tracks the cumulative loss for epoch-level reporting."""

    def __init__(self, training_tau):
        super(PinballLoss, self).__init__()
        self.training_tau = training_tau
        self.cum_loss = 0.0
        self.n_batches = 0

    def forward(self, predictions, actuals):
        diff = actuals - predictions
        loss = torch.max(self.training_tau * diff, (self.training_tau - 1) * diff).mean()
        self.cum_loss = self.cum_loss + loss  # known-miss: TLK101
        self.n_batches += 1
        return loss

    def epoch_mean(self):
        mean = float(self.cum_loss) / max(self.n_batches, 1)
        self.cum_loss, self.n_batches = 0.0, 0
        return mean


def grouped_loss(criterion, predictions, actuals, group_size=4):
    """Average of the per-group losses; the caller backwards the result."""
    total = 0.0
    n_groups = 0
    for s in range(0, predictions.shape[0], group_size):
        total = total + criterion(predictions[s:s + group_size], actuals[s:s + group_size])  # CLEAN: local sum of micro-losses, backwarded by the caller
        n_groups += 1
    return total / n_groups


def sMAPE(predictions, actuals):
    return (2 * (predictions - actuals).abs() / (predictions.abs() + actuals.abs())).mean()
