import torch.nn as nn


def xavier(m: nn.Module) -> None:
    """Applies Xavier initialization to linear modules."""
    if m.__class__.__name__ == 'Linear':
        fan_in = m.weight.data.size(1)
        fan_out = m.weight.data.size(0)
        std = 1.0 * (2.0 / (fan_in + fan_out)) ** 0.5
        a = (3.0 ** 0.5) * std
        m.weight.data.uniform_(-a, a)
        if m.bias is not None:
            m.bias.data.fill_(0.0)


def num_flat_features(x) -> int:
    size = x.size()[1:]
    num_features = 1
    for ff in size:
        num_features *= ff
    return num_features


class MammothBackbone(nn.Module):
    """Base class for the backbones: `forward` accepts a `returnt` switch."""

    def forward(self, x, returnt='out'):
        raise NotImplementedError

    def features(self, x):
        return self.forward(x, returnt='features')
