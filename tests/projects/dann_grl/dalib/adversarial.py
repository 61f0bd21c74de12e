"""Gradient reversal and the domain adversarial loss (DANN)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class _ReverseGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, coeff):
        ctx.coeff = coeff
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.coeff, None


class GradientReverseLayer(nn.Module):
    """Warm-start GRL: the reversal coefficient ramps from lo to hi over max_iters."""

    def __init__(self, lo=0.0, hi=1.0, alpha=10.0, max_iters=200):
        super().__init__()
        self.lo, self.hi, self.alpha, self.max_iters = lo, hi, alpha, max_iters
        self.iter_num = 0

    def forward(self, x):
        p = min(self.iter_num / self.max_iters, 1.0)
        coeff = 2.0 * (self.hi - self.lo) / (1.0 + math.exp(-self.alpha * p)) - (self.hi - self.lo) + self.lo
        if self.training:
            self.iter_num += 1
        return _ReverseGrad.apply(x, coeff)


class DomainAdversarialLoss(nn.Module):
    def __init__(self, discriminator, momentum=0.9):
        super().__init__()
        self.grl = GradientReverseLayer()
        self.discriminator = discriminator
        self.momentum = momentum
        # smoothed discriminator confidence on the source half, shown in the progress line
        self.source_confidence = torch.tensor(0.5)

    def forward(self, f_s, f_t):
        f = self.grl(torch.cat((f_s, f_t), dim=0))
        d = torch.sigmoid(self.discriminator(f))
        d_s, d_t = d.chunk(2, dim=0)
        self.source_confidence = self.momentum * self.source_confidence + (1 - self.momentum) * d_s.mean()  # expect: TLK103
        ones = torch.ones_like(d_s)
        zeros = torch.zeros_like(d_t)
        return 0.5 * (F.binary_cross_entropy(d_s, ones) + F.binary_cross_entropy(d_t, zeros))

    def discriminate(self, f):
        """Raw discriminator probabilities (no reversal), used by the gradient penalty."""
        return torch.sigmoid(self.discriminator(f))
