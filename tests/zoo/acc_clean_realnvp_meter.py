# Source: https://github.com/chrischute/real-nvp/blob/0aff89c20d4ef12fab2237d4ba2242feb312b603/train.py
# Shape: RealNVP accumulates the log-determinant (`sldj = sldj + s.sum(...)`) across coupling layers inside one forward, and the training loop feeds loss_meter.update(loss.item(), x.size(0)), so only floats survive an iteration.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.val = 0.
        self.avg = 0.
        self.sum = 0.
        self.count = 0.

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def bits_per_dim(x, nll):
    dim = x.numel() // x.size(0)
    return nll / (math.log(2) * dim)


class CouplingLayer(nn.Module):
    def __init__(self, in_features, mid_features, mask):
        super().__init__()
        self.register_buffer('mask', mask)
        self.st_net = nn.Sequential(nn.Linear(in_features, mid_features), nn.ReLU(),
                                    nn.Linear(mid_features, mid_features), nn.ReLU(),
                                    nn.Linear(mid_features, 2 * in_features))
        self.rescale = nn.utils.parametrizations.weight_norm(nn.Linear(in_features, in_features, bias=False))

    def forward(self, x, sldj=None, reverse=False):
        x_b = x * self.mask
        st = self.st_net(x_b)
        s, t = st.chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        if reverse:
            x = x_b + (1 - self.mask) * ((x - t) * s.mul(-1).exp())
        else:
            x = x_b + (1 - self.mask) * (x * s.exp() + t)
            sldj = sldj + s.sum(dim=1)
        return x, sldj


class RealNVP(nn.Module):
    def __init__(self, in_features=48, mid_features=64, num_couplings=4):
        super().__init__()
        masks = []
        for i in range(num_couplings):
            m = torch.zeros(in_features)
            m[i % 2::2] = 1.
            masks.append(m)
        self.flows = nn.ModuleList([CouplingLayer(in_features, mid_features, m) for m in masks])

    def _pre_process(self, x, data_constraint=0.9):
        y = (x * 255. + torch.rand_like(x)) / 256.
        y = (2 * y - 1) * data_constraint
        y = (y + 1) / 2
        y = y.log() - (1. - y).log()
        ldj = F.softplus(y) + F.softplus(-y) - F.softplus(torch.tensor(math.log(1. - data_constraint) - math.log(data_constraint)))
        sldj = ldj.view(ldj.size(0), -1).sum(-1)
        return y, sldj

    def forward(self, x, reverse=False):
        sldj = None
        if not reverse:
            x, sldj = self._pre_process(x)
        for flow in self.flows:
            x, sldj = flow(x, sldj, reverse)
        return x, sldj


class RealNVPLoss(nn.Module):
    def __init__(self, k=256):
        super().__init__()
        self.k = k

    def forward(self, z, sldj):
        prior_ll = -0.5 * (z ** 2 + math.log(2 * math.pi))
        prior_ll = prior_ll.flatten(1).sum(-1) - math.log(self.k) * z[0].numel()
        ll = prior_ll + sldj
        nll = -ll.mean()
        return nll


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    device = 'cpu'
    net = RealNVP().to(device)
    loss_fn = RealNVPLoss()
    optimizer = optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    loss_meter = AverageMeter()
    postfix = {}
    for seed in batches:
        g = torch.Generator().manual_seed(seed)
        x = torch.rand(32, 48, generator=g).clamp(1e-3, 1 - 1e-3)
        x = x.to(device)
        optimizer.zero_grad()
        z, sldj = net(x, reverse=False)
        loss = loss_fn(z, sldj)
        loss_meter.update(loss.item(), x.size(0))
        loss.backward()
        optimizer.step()
        postfix = dict(loss=loss_meter.avg, bpd=bits_per_dim(x, loss_meter.avg))
    return postfix
