import torch
import torch.nn.functional as F


def node_nll(output, labels, idx):
    return F.nll_loss(output[idx], labels[idx])


class InputGradientPenalty(object):
    """Smoothness regulariser: penalise ||d loss / d x||^2 over node features.

    Keeps the per-step penalty value around so that it can be plotted later.
    """

    def __init__(self, weight=1e-3):
        self.weight = weight
        self.trace = []

    def __call__(self, loss, inputs):
        grad, = torch.autograd.grad(loss, inputs, create_graph=True)  # CLEAN: double-backward graph is consumed by the penalty the caller backwards
        gnorm = grad.pow(2).sum(dim=1).mean()
        self.trace.append(gnorm)  # expect: TLK301
        return self.weight * gnorm
