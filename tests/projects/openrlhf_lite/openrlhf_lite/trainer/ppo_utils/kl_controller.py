# Modelled on openrlhf/trainer/ppo_utils/kl_controller.py (numpy is not a dependency here)


def np_clip(a, a_min, a_max):
    """numpy.clip: dispatches to ``a.clip`` when the argument has one, like numpy does."""
    if hasattr(a, "clip"):
        return a.clip(a_min, a_max)
    return min(max(a, a_min), a_max)


class AdaptiveKLController:
    """
    Adaptive KL controller described in the paper:
    https://arxiv.org/pdf/1909.08593.pdf
    """

    def __init__(self, init_kl_coef, target, horizon):
        self.value = init_kl_coef
        self.target = target
        self.horizon = horizon

    def update(self, current, n_steps):
        target = self.target
        proportional_error = np_clip(current / target - 1, -0.2, 0.2)
        mult = 1 + proportional_error * n_steps / self.horizon
        self.value *= mult  # known-false: TLK101 (a true site of the same leak: the attached KL averaged into self.value every update; the author marked where the KL is made, ppo_trainer.py:246)


class FixedKLController:
    """Fixed KL controller."""

    def __init__(self, kl_coef):
        self.value = kl_coef

    def update(self, current, n_steps):
        pass
