# Source: https://github.com/moskomule/ewc.pytorch/blob/234e64f4452ccafa12b07e0b45b8544bcb2d660a/utils.py
# Shape: looks like a leak (EWC keeps parameter means and Fisher matrices on the object, the penalty accumulates loss += _loss.sum(), and the training loop accumulates epoch_loss), but means/Fisher are built from .data, the penalty sum is local and backwarded, and epoch_loss takes loss.item().
# Verdict: clean
from copy import deepcopy
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(32, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class EWC(object):
    def __init__(self, model, dataset):
        self.model = model
        self.dataset = dataset
        self.params = {n: p for n, p in self.model.named_parameters() if p.requires_grad}
        self._means = {}
        self._precision_matrices = self._diag_fisher()
        for n, p in deepcopy(self.params).items():
            self._means[n] = p.data

    def _diag_fisher(self):
        precision_matrices = {}
        for n, p in deepcopy(self.params).items():
            p.data.zero_()
            precision_matrices[n] = p.data
        self.model.eval()
        for input in self.dataset:
            self.model.zero_grad()
            output = self.model(input).view(1, -1)
            label = output.max(1)[1].view(-1)
            loss = F.nll_loss(F.log_softmax(output, dim=1), label)
            loss.backward()
            for n, p in self.model.named_parameters():
                precision_matrices[n].data += p.grad.data ** 2 / len(self.dataset)
        return {n: p for n, p in precision_matrices.items()}

    def penalty(self, model):
        loss = 0
        for n, p in model.named_parameters():
            _loss = self._precision_matrices[n] * (p - self._means[n]) ** 2
            loss += _loss.sum()
        return loss


def ewc_train(model, optimizer, data, targets, batches, ewc, importance):
    model.train()
    epoch_loss = 0
    for idx in batches:
        input, target = data[idx], targets[idx]
        optimizer.zero_grad()
        output = model(input)
        loss = F.cross_entropy(output, target) + importance * ewc.penalty(model)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
    return epoch_loss / len(batches)


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (32,), generator=g) for _ in range(n)]


def run(batches):
    g = torch.Generator().manual_seed(1)
    old_task = [torch.randn(32, generator=g) for _ in range(20)]
    data = torch.randn(256, 32, generator=g)
    targets = torch.randint(0, 10, (256,), generator=g)
    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    ewc = EWC(model, old_task)
    model.train()
    return ewc_train(model, optimizer, data, targets, batches, ewc, importance=1000)
