""" Summary utilities (in-memory CSV-like rows) """
from collections import OrderedDict


def update_summary(epoch, train_metrics, eval_metrics, rows, lr=None):
    rowd = OrderedDict(epoch=epoch)
    rowd.update([('train_' + k, v) for k, v in train_metrics.items()])
    if eval_metrics:
        rowd.update([('eval_' + k, v) for k, v in eval_metrics.items()])
    if lr is not None:
        rowd['lr'] = lr
    rows.append(rowd)
    return rowd
