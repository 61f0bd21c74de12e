# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/96
# Shape: the D loss is backwarded once without retain_graph (G re-runs D on fresh fake logits) and the stats object sums d_loss.item(), so nothing from a step outlives it.
# Verdict: clean
"""1-D GAN ("painter" style): G maps noise to curves, D tells real curves from fake."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NOISE, POINTS, BATCH = 5, 15, 16
XS = torch.linspace(-1, 1, POINTS)


class EpochStats:
    def __init__(self):
        self.sums = {"d_loss": 0.0, "g_loss": 0.0}
        self.count = 0

    def mean(self, key):
        return float(self.sums[key]) / max(self.count, 1)


def make_batches(n):
    g = torch.Generator().manual_seed(9)
    out = []
    for _ in range(n):
        a = 1 + torch.rand(BATCH, 1, generator=g)
        real = a * XS.pow(2)[None, :] + (a - 1)
        z = torch.randn(BATCH, NOISE, generator=g)
        out.append((real, z))
    return out


def run(batches):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(NOISE, 32), nn.ReLU(), nn.Linear(32, POINTS))
    D = nn.Sequential(nn.Linear(POINTS, 32), nn.ReLU(), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    stats = EpochStats()
    ones, zeros = torch.ones(BATCH, 1), torch.zeros(BATCH, 1)
    for real, z in batches:
        fake = G(z)

        opt_d.zero_grad()
        d_loss = (F.binary_cross_entropy_with_logits(D(real), ones)
                  + F.binary_cross_entropy_with_logits(D(fake.detach()), zeros))
        d_loss.backward()
        opt_d.step()

        opt_g.zero_grad()
        g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
        g_loss.backward()
        opt_g.step()

        stats.sums["d_loss"] += d_loss.item()
        stats.sums["g_loss"] += g_loss.item()
        stats.count += 1
    return stats.mean("d_loss"), stats.mean("g_loss")


if __name__ == "__main__":
    print(run(make_batches(20)))
