# Source: https://github.com/iBelieveCJM/Tricks-of-Semi-supervisedDeepLeanring-Pytorch/blob/master/trainer/ePseudoLabel2013v1.py
# Shape: the bank stores each confidence as a Python float, so no entry keeps a graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


N_CLASSES = 6


def make_batches(n, lab_bs=16, unlab_bs=48, in_dim=32):
    g = torch.Generator().manual_seed(0)
    batches = []
    for i in range(n):
        xl = torch.randn(lab_bs, in_dim, generator=g)
        yl = torch.randint(0, N_CLASSES, (lab_bs,), generator=g)
        xu = torch.randn(unlab_bs, in_dim, generator=g)
        idx_u = torch.arange(i * unlab_bs, (i + 1) * unlab_bs)
        batches.append((xl, yl, xu, idx_u))
    return batches


class ConvLarge1d(nn.Module):
    def __init__(self, in_dim=32, hidden=128, n_classes=N_CLASSES):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.LeakyReLU(0.1),
                                  nn.Dropout(0.2), nn.Linear(hidden, hidden), nn.LeakyReLU(0.1))
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


class PseudoLabelBank:
    """Epoch pseudo labels: predictions of epoch t are the targets of epoch t+1."""

    def __init__(self, threshold=0.25):
        self.threshold = threshold
        self.entries = {}
        self.active = {}

    def update(self, idxs, logits):
        probs = F.softmax(logits, dim=1)
        conf, label = probs.max(dim=1)
        for i, c, l in zip(idxs.tolist(), conf, label.tolist()):
            self.entries[i] = (c.item(), l)

    def targets_for(self, idxs):
        found = [(k, self.active[i]) for k, i in enumerate(idxs.tolist()) if i in self.active]
        if not found:
            return None, None
        pos, labels = zip(*found)
        return torch.tensor(pos), torch.tensor(labels)

    def end_epoch(self):
        self.active = {i: l for i, (c, l) in self.entries.items() if float(c) >= self.threshold}
        self.entries = {}


class PseudoLabelTrainer:
    def __init__(self, model, usp_weight=1.0, lr=0.03):
        self.model = model
        self.bank = PseudoLabelBank()
        self.ce = nn.CrossEntropyLoss()
        self.usp_weight = usp_weight
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
        self.loop_info = {"lloss": [], "uloss": []}

    def train_iteration(self, batches):
        self.model.train()
        for xl, yl, xu, idx_u in batches:
            logits_l = self.model(xl)
            logits_u = self.model(xu)
            loss = self.ce(logits_l, yl)
            self.loop_info["lloss"].append(loss.item())
            pos, targets = self.bank.targets_for(idx_u)
            if pos is not None:
                uloss = self.ce(logits_u[pos], targets) * self.usp_weight
                loss = loss + uloss
                self.loop_info["uloss"].append(uloss.item())
            self.bank.update(idx_u, logits_u)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return self.loop_info

    def loop(self, epochs, batches):
        for _ in range(epochs):
            self.train_iteration(batches)
            self.bank.end_epoch()


def run(steps):
    trainer = PseudoLabelTrainer(ConvLarge1d())
    trainer.train_iteration(make_batches(steps))
    return trainer


if __name__ == "__main__":
    t = run(30)
    print(len(t.bank.entries), t.loop_info["lloss"][-1])
