# Modelled on dragen1860/MAML-Pytorch (meta.py), first-order variant: the outer loss of a batch of tasks is the sum
# of their query losses after a few inner steps; the caller backwards it.
import torch
import torch.nn.functional as F


def adapt(net, x_spt, y_spt, inner_lr):
    weights = [net.weight, net.bias]
    loss = F.cross_entropy(net(x_spt, weights), y_spt)
    grads = torch.autograd.grad(loss, weights)
    return [w - inner_lr * g for w, g in zip(weights, grads)]


def meta_loss(net, tasks, inner_lr=0.4):
    total = 0.0
    for x_spt, y_spt, x_qry, y_qry in tasks:
        fast = adapt(net, x_spt, y_spt, inner_lr)
        total = total + F.cross_entropy(net(x_qry, fast), y_qry)
    return total / len(tasks)


def query_accuracy(net, tasks):
    with torch.no_grad():
        correct = 0
        for _, _, x_qry, y_qry in tasks:
            correct += (net(x_qry).argmax(1) == y_qry).sum()
        return correct
