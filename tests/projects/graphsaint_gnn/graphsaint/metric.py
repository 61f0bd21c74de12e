import numpy as np


def _f1(tp, fp, fn):
    prec = tp / np.maximum(tp + fp, 1)
    rec = tp / np.maximum(tp + fn, 1)
    return np.where(prec + rec > 0, 2 * prec * rec / np.maximum(prec + rec, 1e-12), 0.0)


def calc_f1(y_true, y_pred, is_sigmoid):
    """Micro / macro F1 over one-hot (softmax) or multi-hot (sigmoid) labels."""
    if not is_sigmoid:
        y_true = np.argmax(y_true, axis=1)
        y_pred = np.argmax(y_pred, axis=1)
        n_cls = int(max(y_true.max(), y_pred.max())) + 1
        t = np.eye(n_cls)[y_true]
        p = np.eye(n_cls)[y_pred]
    else:
        t = (y_true > 0.5).astype(float)
        p = (y_pred > 0.5).astype(float)
    tp = (t * p).sum(0)
    fp = ((1 - t) * p).sum(0)
    fn = (t * (1 - p)).sum(0)
    f1_micro = float(_f1(tp.sum(), fp.sum(), fn.sum()))
    f1_macro = float(_f1(tp, fp, fn).mean())
    return f1_micro, f1_macro
