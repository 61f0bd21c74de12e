from collections.abc import Callable

import numpy as np
import torch as th

from sb3lite.common.type_aliases import Schedule


def set_random_seed(seed: int) -> None:
    """
    Seed the different random generators.
    """
    np.random.seed(seed)
    th.manual_seed(seed)


def explained_variance(y_pred: np.ndarray, y_true: np.ndarray) -> float:
    """
    Computes fraction of variance that ypred explains about y.
    Returns 1 - Var[y-ypred] / Var[y]
    """
    assert y_true.ndim == 1 and y_pred.ndim == 1
    var_y = np.var(y_true)
    return np.nan if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)


class ConstantSchedule:
    """
    Constant schedule that always returns the same value.
    """

    def __init__(self, val: float):
        self.val = val

    def __call__(self, _: float) -> float:
        return self.val


def get_schedule_fn(value_schedule: Schedule | float) -> Schedule:
    """
    Transform (if needed) learning rate and clip range (for PPO)
    to callable.
    """
    if isinstance(value_schedule, (float, int)):
        value_schedule = ConstantSchedule(float(value_schedule))
    else:
        assert callable(value_schedule)
    return value_schedule


class KLAdaptiveClipRange:
    """
    Clip range schedule driven by the running mean of the approximate KL
    divergence measured during the updates: shrinks the clip range while the
    policy moves faster than ``target_kl``, widens it back otherwise.

    :param initial_value: clip range at the start of training
    :param target_kl: KL divergence the updates should stay around
    """

    def __init__(self, initial_value: float = 0.2, target_kl: float = 0.01,
                 min_value: float = 0.05, max_value: float = 0.3):
        self.initial_value = initial_value
        self.target_kl = target_kl
        self.min_value = min_value
        self.max_value = max_value
        self.kl_sum = 0.0
        self.n_updates = 0

    def update(self, approx_kl) -> None:
        self.kl_sum = self.kl_sum + approx_kl  # known-miss: TLK101
        self.n_updates += 1

    def mean_kl(self) -> float:
        if self.n_updates == 0:
            return 0.0
        return float(self.kl_sum) / self.n_updates

    def __call__(self, progress_remaining: float) -> float:
        if self.n_updates == 0:
            return self.initial_value
        scale = float(np.clip(self.target_kl / max(self.mean_kl(), 1e-8), 0.5, 1.5))
        return float(np.clip(self.initial_value * scale, self.min_value, self.max_value))


def obs_as_tensor(obs: np.ndarray, device: th.device | str) -> th.Tensor:
    """
    Moves the observation to the given device.
    """
    return th.as_tensor(obs, device=device)


def get_device(device: th.device | str = "auto") -> th.device:
    if device == "auto":
        device = "cuda" if th.cuda.is_available() else "cpu"
    return th.device(device)


def update_learning_rate(optimizer: th.optim.Optimizer, learning_rate: float) -> None:
    """
    Update the learning rate for a given optimizer.
    """
    for param_group in optimizer.param_groups:
        param_group["lr"] = learning_rate


FloatSchedule = Callable[[float], float]
