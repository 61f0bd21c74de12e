# Modelled on utils/metrics.py of zhouhaoyi/Informer2020 (MAE, MSE, ...), with a tracker that
# collects the test predictions the way Exp_Informer.test collects preds and trues.
import torch


class MetricTracker:
    def __init__(self):
        self.preds, self.trues = [], []

    def update(self, pred, true):
        self.preds.append(pred.detach().cpu())
        self.trues.append(true.detach().cpu())

    def compute(self):
        preds, trues = torch.cat(self.preds), torch.cat(self.trues)
        mae = (preds - trues).abs().mean().item()
        mse = ((preds - trues) ** 2).mean().item()
        return mae, mse
