# Source: https://github.com/pytorch/pytorch/issues/7343
# Shape: gradient-norm regularised training written by hand: loss.backward(create_graph=True) fills each parameter's .grad with a differentiable gradient, the squared gradient norm is backwarded on top, the update runs under no_grad, and the gradients are then "reset" with p.grad.data.zero_(), which zeroes the values but keeps each .grad's grad_fn: the parameter/.grad reference cycle survives, and the next backward adds onto a gradient that still holds every earlier step's graph.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model(n_in=784, n_hidden=256, n_classes=10):
    return nn.Sequential(nn.Linear(n_in, n_hidden), nn.Tanh(), nn.Linear(n_hidden, n_classes))


def train(model, loader, lr=0.05, lam=0.01, epochs=5):
    params = [p for p in model.parameters() if p.requires_grad]
    for epoch in range(epochs):
        running = 0.0
        for x, y in loader:
            loss = F.cross_entropy(model(x.flatten(1)), y)
            loss.backward(create_graph=True)  # TLK302
            grad_norm = sum((p.grad ** 2).sum() for p in params)
            (lam * grad_norm).backward()
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
            for p in params:
                p.grad.data.zero_()
            running += loss.item()
        print(f"epoch {epoch}: {running / len(loader):.4f}")
