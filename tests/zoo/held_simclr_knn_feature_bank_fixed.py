# Source: https://github.com/pytorch/pytorch/issues/194997
# Shape: A self-supervised trainer keeps each batch's detached embeddings in a feature bank list for an end-of-epoch kNN monitor.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    n = z1.size(0)
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


class SimCLRTrainer:
    def __init__(self):
        self.backbone = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 32))
        self.projector = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 16))
        params = list(self.backbone.parameters()) + list(self.projector.parameters())
        self.opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
        self.feature_bank, self.label_bank = [], []

    def train_one_epoch(self, loader):
        self.feature_bank, self.label_bank = [], []
        for x, y in loader:
            h1, h2 = self.backbone(augment(x)), self.backbone(augment(x))
            objective = nt_xent(self.projector(h1), self.projector(h2))
            self.opt.zero_grad()
            objective.backward()
            self.opt.step()
            self.feature_bank.append(F.normalize(h1.detach(), dim=1))
            self.label_bank.append(y)
        return self.knn_monitor()

    @torch.no_grad()
    def knn_monitor(self, k=5):
        bank = torch.cat(self.feature_bank)
        labels = torch.cat(self.label_bank)
        sim = bank @ bank.t()
        sim.fill_diagonal_(-1)
        idx = sim.topk(k, dim=1).indices
        pred = labels[idx].mode(dim=1).values
        return (pred == labels).float().mean().item()


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(3, 20, generator=g)
    out = []
    for _ in range(n):
        y = torch.randint(0, 3, (8,), generator=g)
        out.append((centers[y] + 0.3 * torch.randn(8, 20, generator=g), y))
    return out


def run(batches):
    torch.manual_seed(0)
    acc = SimCLRTrainer().train_one_epoch(batches)
    print(f"knn acc {acc:.3f}")


if __name__ == "__main__":
    run(make_batches())
