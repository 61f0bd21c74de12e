import torch as th


def explained_variance(y_pred: th.Tensor, y_true: th.Tensor) -> float:
    """
    Computes fraction of variance that ypred explains about y.
    Returns 1 - Var[y-ypred] / Var[y]
    """
    var_y = th.var(y_true)
    return float("nan") if var_y == 0 else float(1 - th.var(y_true - y_pred) / var_y)


def safe_mean(arr) -> float:
    return float("nan") if len(arr) == 0 else float(sum(arr) / len(arr))


def get_schedule_fn(value):
    if callable(value):
        return value
    return lambda _: float(value)
