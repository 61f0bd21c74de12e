# Source: https://github.com/learnables/learn2learn/issues/154
# Shape: a second-order MAML learner adapts a functional copy of the network for several steps with autograd.grad(create_graph=True) and backwards each task's query loss through all of them (the create_graph gradients are differentiated); its monitoring total of the adaptation gradients' norms is computed under torch.no_grad() and added as a float.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class MAMLLearner:
    def __init__(self, net, fast_lr=0.4, adaptation_steps=3, first_order=False):
        self.net = net
        self.fast_lr = fast_lr
        self.adaptation_steps = adaptation_steps
        self.second_order = not first_order
        self.inner_grad_norm_total = 0.0

    def adapt(self, params, x, y):
        loss = F.cross_entropy(functional_call(self.net, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), retain_graph=self.second_order, create_graph=self.second_order)
        with torch.no_grad():
            self.inner_grad_norm_total += torch.stack([g.norm() for g in grads]).sum().item()
        return {name: p - self.fast_lr * g for (name, p), g in zip(params.items(), grads)}

    def fast_adapt(self, support, query):
        params = dict(self.net.named_parameters())
        for _ in range(self.adaptation_steps):
            params = self.adapt(params, *support)
        logits = functional_call(self.net, params, (query[0],))
        evaluation_error = F.cross_entropy(logits, query[1])
        accuracy = (logits.argmax(-1) == query[1]).float().mean()
        return evaluation_error, accuracy


def meta_train(net, task_batches, meta_lr=3e-3):
    learner = MAMLLearner(net)
    opt = torch.optim.Adam(net.parameters(), meta_lr)
    history = []
    for tasks in task_batches:
        opt.zero_grad()
        meta_error, meta_accuracy = 0.0, 0.0
        for support, query in tasks:
            evaluation_error, evaluation_accuracy = learner.fast_adapt(support, query)
            evaluation_error.backward()
            meta_error += evaluation_error.item()
            meta_accuracy += evaluation_accuracy.item()
        for p in net.parameters():
            p.grad.data.mul_(1.0 / len(tasks))
        opt.step()
        history.append((meta_error / len(tasks), meta_accuracy / len(tasks)))
    return history, learner


def build_net(d_in=16, ways=5, width=32):
    return nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, ways))
