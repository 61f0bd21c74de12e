# Source: https://github.com/f-dangel/backpack/issues/258
# Shape: the input gradient is taken with torch.autograd.grad(create_graph=True) and consumed by the same step's penalty backward, so no .grad field holds a graph and no cycle is formed.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=20, d_hid=32, n_cls=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hid), nn.Softplus(), nn.Linear(d_hid, d_hid), nn.Softplus(),
                                 nn.Linear(d_hid, n_cls))

    def forward(self, x):
        return self.net(x)


def input_gradient(loss, x):
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    return gx


class DoubleBackpropTrainer:
    """Drucker & LeCun style input-gradient regularisation."""

    def __init__(self, model, lam=0.1, lr=1e-3):
        self.model, self.lam = model, lam
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = {"ce": [], "gp": []}

    def train_step(self, x, y):
        x = x.detach().requires_grad_(True)
        ce = F.cross_entropy(self.model(x), y)
        gx = input_gradient(ce, x)
        gp = gx.pow(2).sum(dim=1).mean()
        self.opt.zero_grad(set_to_none=True)
        (ce + self.lam * gp).backward()
        self.opt.step()
        self.history["ce"].append(ce.item())
        self.history["gp"].append(gp.item())

    def fit(self, loader):
        for x, y in loader:
            self.train_step(x, y)


def make_batches(n, bs=8, d_in=20):
    return [(torch.randn(bs, d_in), torch.randint(0, 4, (bs,))) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    DoubleBackpropTrainer(MLP()).fit(batches)
