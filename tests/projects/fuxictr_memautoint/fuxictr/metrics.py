import logging

import torch
import torch.nn.functional as F


def _logloss(y_true, y_pred, eps=1e-7):
    y_pred = y_pred.clamp(eps, 1 - eps)
    return float(F.binary_cross_entropy(y_pred, y_true, reduction="mean"))


def _roc_auc(y_true, y_pred):
    # Mann-Whitney U with average ranks for ties
    order = torch.argsort(y_pred)
    ranks = torch.empty_like(y_pred)
    ranks[order] = torch.arange(1, len(y_pred) + 1, dtype=y_pred.dtype)
    for v in torch.unique(y_pred):
        tie = y_pred == v
        if tie.sum() > 1:
            ranks[tie] = ranks[tie].mean()
    n_pos = float(y_true.sum())
    n_neg = float(len(y_true) - n_pos)
    if n_pos == 0 or n_neg == 0:
        return 0.5
    return float((ranks[y_true == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def evaluate_metrics(y_true, y_pred, metrics, group_id=None):
    return_dict = dict()
    for metric in metrics:
        if metric in ["logloss", "binary_crossentropy"]:
            return_dict[metric] = _logloss(y_true, y_pred)
        elif metric == "AUC":
            return_dict[metric] = _roc_auc(y_true, y_pred)
        else:
            raise ValueError("metric={} not supported.".format(metric))
    logging.info("[Metrics] " + " - ".join("{}: {:.6f}".format(k, v) for k, v in return_dict.items()))
    return return_dict


class RunningLogLoss(object):
    """Streaming train logloss over the batches of an epoch (what the progress bar prints)."""

    def __init__(self, eps=1e-7):
        self.eps = eps
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, y_true, y_pred):
        y_pred = y_pred.clamp(self.eps, 1 - self.eps)
        self.total += F.binary_cross_entropy(y_pred, y_true, reduction="sum")  # expect: TLK101
        self.count += y_true.numel()

    @property
    def value(self):
        total = self.total.item() if torch.is_tensor(self.total) else self.total
        return total / max(self.count, 1)
