# Source: https://github.com/imatif17/Prototype-Mean-Teacher/issues/14
# Shape: per-class prototypes are kept as module attributes and updated in place from graph-attached features each step, but each is re-bound to its .detach() right after the alignment loss is built, so only the current step's graph is referenced and it is freed by backward.
# Verdict: clean
import itertools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class PrototypeNet(nn.Module):
    def __init__(self, in_dim=64, hidden=64, out_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(in_dim, hidden)
        self.linear2 = nn.Linear(hidden, out_dim)

    def forward(self, x):
        return self.linear2(F.relu(self.linear1(x)))


class PrototypeAligner(nn.Module):
    """Keeps running-mean class prototypes for a source and a target domain."""

    def __init__(self, num_classes=4, in_dim=64, proto_dim=32, contra=True):
        super().__init__()
        self.num_classes = num_classes
        self.contra = contra
        self.proto = PrototypeNet(in_dim, 64, proto_dim)
        self.classifier = nn.Linear(in_dim, num_classes)
        self.prototype_s = torch.zeros(num_classes, proto_dim)
        self.prototype_t = torch.zeros(num_classes, proto_dim)
        self.number_of_occurance_s = [0] * num_classes
        self.number_of_occurance_t = [0] * num_classes

    def _update(self, prototypes, counts, labels, feats):
        for lab, pro in zip(labels.tolist(), feats):
            prototypes[lab] = (prototypes[lab] * counts[lab] + pro) / (counts[lab] + 1)
            counts[lab] += 1

    def forward(self, x_s, y_s, x_t, y_t_pseudo):
        loss_cls = F.cross_entropy(self.classifier(x_s), y_s)
        feats_s = self.proto(x_s)
        feats_t = self.proto(x_t)
        self._update(self.prototype_s, self.number_of_occurance_s, y_s, feats_s)
        self._update(self.prototype_t, self.number_of_occurance_t, y_t_pseudo, feats_t)

        loss_pro = -F.cosine_similarity(self.prototype_s, self.prototype_t).abs().mean()
        self.prototype_t = self.prototype_t.detach()

        loss_c = 0
        if self.contra:
            for i, j in itertools.combinations(range(self.num_classes), 2):
                loss_c += F.cosine_similarity(self.prototype_s[i].view(1, -1), self.prototype_s[j].view(1, -1)).abs().mean()
            loss_c = loss_c / math.comb(self.num_classes, 2)
        self.prototype_s = self.prototype_s.detach()
        return loss_cls, loss_pro, loss_c


def make_batches(n, batch_size=16, in_dim=64, num_classes=4):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        y_s = torch.arange(batch_size) % num_classes
        y_t = torch.randint(0, num_classes, (batch_size,), generator=g)
        out.append((torch.randn(batch_size, in_dim, generator=g), y_s, torch.randn(batch_size, in_dim, generator=g) + 0.5, y_t))
    return out


def run(steps):
    torch.manual_seed(0)
    model = PrototypeAligner()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    history = []
    for x_s, y_s, x_t, y_t in make_batches(steps):
        loss_cls, loss_pro, loss_c = model(x_s, y_s, x_t, y_t)
        loss = loss_cls + 0.1 * loss_pro + 0.1 * loss_c
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append({"cls": loss_cls.item(), "pro": loss_pro.item(), "contra": float(loss_c)})
    return {"model": model, "history": history}


if __name__ == "__main__":
    print(run(4)["history"][-1])
