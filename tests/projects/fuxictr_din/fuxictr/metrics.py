import numpy as np
from collections import OrderedDict


def log_loss(y_true, y_pred, eps=1e-7):
    y_pred = np.clip(y_pred, eps, 1 - eps)
    return float(-np.mean(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred)))


def roc_auc_score(y_true, y_pred):
    order = np.argsort(y_pred)
    ranks = np.empty(len(y_pred), dtype=np.float64)
    ranks[order] = np.arange(1, len(y_pred) + 1)
    n_pos = float(np.sum(y_true == 1))
    n_neg = float(len(y_true) - n_pos)
    if n_pos == 0 or n_neg == 0:
        return 0.5
    return float((np.sum(ranks[y_true == 1]) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def evaluate_metrics(y_true, y_pred, metrics, group_id=None):
    return_dict = OrderedDict()
    for metric in metrics:
        if metric in ['logloss', 'binary_crossentropy']:
            return_dict[metric] = log_loss(y_true, y_pred)
        elif metric == 'AUC':
            return_dict[metric] = roc_auc_score(y_true, y_pred)
        else:
            raise NotImplementedError("metric={} is not supported.".format(metric))
    return return_dict
