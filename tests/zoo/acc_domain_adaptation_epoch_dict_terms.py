# Source: https://github.com/JIA-Lab-research/DecoupleNet/issues/3
# Shape: a domain-adaptation trainer sums its per-batch loss terms into an epoch dict of running totals with += on the loss tensors themselves.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self, c_in=3, n_cls=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(c_in, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(8, n_cls, 1)
        self.disc = nn.Sequential(nn.Conv2d(n_cls, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1))

    def forward(self, x):
        return self.head(self.enc(x))


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        src = torch.randn(2, 3, 8, 8, generator=g)
        lbl = torch.randint(0, 4, (2, 8, 8), generator=g)
        tgt = torch.randn(2, 3, 8, 8, generator=g)
        out.append((src, lbl, tgt))
    return out


def compute_losses(net, src, lbl, tgt):
    logit_s = net(src)
    logit_t = net(tgt)
    seg = F.cross_entropy(logit_s, lbl)
    adv = F.binary_cross_entropy_with_logits(net.disc(F.softmax(logit_t, 1)), torch.ones(tgt.size(0), 1, 8, 8))
    ent = -(F.softmax(logit_t, 1) * F.log_softmax(logit_t, 1)).sum(1).mean()
    return {"seg": seg, "adv": adv, "ent": ent}


def run(batches):
    net = SegNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    epoch_stats = {"seg": 0.0, "adv": 0.0, "ent": 0.0}
    n_seen = 0
    for src, lbl, tgt in batches:
        parts = compute_losses(net, src, lbl, tgt)
        total = parts["seg"] + 0.01 * parts["adv"] + 0.1 * parts["ent"]
        opt.zero_grad()
        total.backward()
        opt.step()
        for key, val in parts.items():
            epoch_stats[key] += val  # TLK101
        n_seen += 1
    print({k: float(v) / max(n_seen, 1) for k, v in epoch_stats.items()})


if __name__ == "__main__":
    run(make_batches())
