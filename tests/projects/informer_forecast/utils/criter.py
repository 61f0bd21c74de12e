# Modelled on utils/criter.py of zhouhaoyi/Informer2020 (QuantileLoss, RMSELoss, ...): criterion
# modules selected by name in Exp_Informer._select_criterion.
import torch
import torch.nn as nn


class QuantileLoss(nn.Module):
    def __init__(self, quantiles=(0.1, 0.5, 0.9)):
        super(QuantileLoss, self).__init__()
        self.quantiles = quantiles

    def forward(self, preds, target):
        losses = []
        for q in self.quantiles:
            errors = target - preds
            losses.append(torch.max((q - 1) * errors, q * errors).mean())
        return torch.stack(losses).sum()  # clean: the sum is returned to Exp_Informer.train, which backwards it


class RMSELoss(nn.Module):
    def __init__(self):
        super(RMSELoss, self).__init__()
        self.mse = nn.MSELoss()

    def forward(self, preds, target):
        return torch.sqrt(self.mse(preds, target) + 1e-8)
