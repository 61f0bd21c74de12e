# Source: https://github.com/pytorch/pytorch/pull/6017
# Shape: the loss is called l and summed as float(l); the correct count comes from argmax comparisons (integer tensors, no graph); nothing accumulated carries a graph.
# Verdict: clean
import torch
import torch.nn as nn


def fit(clf: nn.Module, loader, epochs=5):
    opt = torch.optim.SGD(clf.parameters(), lr=0.1)
    for epoch in range(epochs):
        total = 0.0
        correct = 0
        seen = 0
        for xb, yb in loader:
            scores = clf(xb)
            l = nn.functional.cross_entropy(scores, yb)
            opt.zero_grad()
            l.backward()
            opt.step()
            total += float(l) * yb.size(0)
            correct += (scores.argmax(dim=1) == yb).sum()
            seen += yb.size(0)
        print(epoch, total / seen, correct.item() / seen)
