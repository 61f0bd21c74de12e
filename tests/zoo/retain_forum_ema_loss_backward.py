# Source: https://discuss.pytorch.org/t/exponential-moving-average-with-backward/93219
# Shape: The loss module keeps an exponential moving average of batch feature statistics as a plain tensor attribute updated out of place (self._ema = m*self._ema + (1-m)*batch_mean); the EMA chains every previous batch's graph, and retain_graph=True is what lets backward() run through the old, already-backwarded parts, so the graph and the backward time grow every step.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

FEAT = 32
N_CLASSES = 5
BATCH = 32


def make_batches(n_batches, seed=0):
    torch.manual_seed(seed)
    centers = torch.randn(N_CLASSES, 16) * 2.0
    out = []
    for _ in range(n_batches):
        y = torch.randint(0, N_CLASSES, (BATCH,))
        x = centers[y] + torch.randn(BATCH, 16)
        out.append((x, y))
    return out


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, FEAT))
        self.head = nn.Linear(FEAT, N_CLASSES)

    def forward(self, x):
        f = self.body(x)
        return f, self.head(f)


class EMAStatLoss(nn.Module):
    """Penalises features that drift from their exponential moving average
    (the idea: 'like batch norm keeps running_mean, but inside the loss')."""

    def __init__(self, dim, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self._ema = torch.zeros(dim)
        self.n_updates = 0

    @property
    def ema(self):
        return self._ema

    def _update(self, batch_mean):
        m = self.momentum
        self._ema = m * self._ema + (1 - m) * batch_mean
        self.n_updates += 1
        return self._ema

    def forward(self, feats):
        ema = self._update(feats.mean(0))
        return (feats - ema).pow(2).sum(1).mean()


class Trainer:
    def __init__(self, lam=0.1, lr=1e-2):
        self.model = Encoder()
        self.stat_loss = EMAStatLoss(FEAT)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.lam = lam
        self.log = {"ce": [], "stat": []}

    def sgd_update(self):
        # parameters are updated through .data (old style), so backward through
        # earlier steps' saved weights does not trip the version check
        for p in self.model.parameters():
            if p.grad is not None:
                p.data.add_(p.grad.data, alpha=-self.opt.param_groups[0]["lr"])

    def step(self, x, y):
        feats, logits = self.model(x)
        ce = F.cross_entropy(logits, y)
        stat = self.stat_loss(feats)
        loss = ce + self.lam * stat
        self.opt.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        self.sgd_update()
        self.log["ce"].append(ce.item())
        self.log["stat"].append(stat.item())


def run(steps):
    torch.manual_seed(0)
    tr = Trainer()
    for x, y in make_batches(steps):
        tr.step(x, y)
    return tr


if __name__ == "__main__":
    run(10)
