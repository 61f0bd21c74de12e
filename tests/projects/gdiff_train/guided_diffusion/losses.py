"""
Helpers for various likelihood-based losses, plus the input-gradient penalty
used to regularise the denoiser.
"""

import math

import torch as th

from .nn import mean_flat


def normal_kl(mean1, logvar1, mean2, logvar2):
    """
    Compute the KL divergence between two gaussians.
    """
    return 0.5 * (
        -1.0
        + logvar2
        - logvar1
        + th.exp(logvar1 - logvar2)
        + ((mean1 - mean2) ** 2) * th.exp(-logvar2)
    )


def approx_standard_normal_cdf(x):
    return 0.5 * (1.0 + th.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * th.pow(x, 3))))


class InputGradientPenalty:
    """
    Penalise the squared norm of d(eps_theta)/d(x_t) (a Jacobian-style smoothness
    term).  The penalty is differentiated again, hence ``create_graph=True``.
    The history of gradient norms is kept to report a running mean.
    """

    def __init__(self, weight=0.01, report_window=50):
        self.weight = weight
        self.report_window = report_window
        self.norm_history = []

    def __call__(self, model_output, x_t):
        (grad,) = th.autograd.grad(model_output.sum(), x_t, create_graph=True)
        self.norm_history.append(grad.norm())  # expect: TLK301
        return self.weight * mean_flat(grad ** 2)

    def running_norm(self):
        window = self.norm_history[-self.report_window:]
        if not window:
            return 0.0
        return sum(float(v) for v in window) / len(window)
