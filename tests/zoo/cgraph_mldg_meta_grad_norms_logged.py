# Source: https://github.com/Pulkit-Khandelwal/medical-mldg-seg/issues/2
# Shape: an MLDG trainer for segmentation across source domains takes the meta-train gradients with create_graph=True (needed: the meta-test loss on the virtually updated weights differentiates through them) and also logs their norm for a gradient-alignment plot by appending the attached norm to a history dict, which keeps every iteration's double-backward graph alive.
# Verdict: leak
import random
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class TinyUNet(nn.Module):
    def __init__(self, ch=1, width=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(ch, width, 3, padding=1), nn.ReLU())
        self.mid = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.out = nn.Conv2d(2 * width, 1, 1)

    def forward(self, x):
        d = self.down(x)
        return self.out(torch.cat([d, self.mid(d)], 1))


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    return 1 - (2 * (prob * target).sum() + eps) / (prob.sum() + target.sum() + eps)


class MLDGTrainer:
    def __init__(self, net, inner_lr=1e-3, meta_weight=1.0, lr=1e-3):
        self.net, self.inner_lr, self.meta_weight = net, inner_lr, meta_weight
        self.optimizer = torch.optim.Adam(net.parameters(), lr=lr)
        self.history = defaultdict(list)

    def step(self, domain_batches):
        domains = list(domain_batches)
        random.shuffle(domains)
        meta_test, meta_train = domains[0], domains[1:]
        names, weights = zip(*self.net.named_parameters())
        train_loss = sum(dice_loss(self.net(x), y) for x, y in (domain_batches[d] for d in meta_train)) / len(meta_train)
        grads = torch.autograd.grad(train_loss, weights, create_graph=True)
        fast = {n: w - self.inner_lr * g for n, w, g in zip(names, weights, grads)}
        x_test, y_test = domain_batches[meta_test]
        test_loss = dice_loss(functional_call(self.net, fast, (x_test,)), y_test)
        self.optimizer.zero_grad()
        (train_loss + self.meta_weight * test_loss).backward()
        self.optimizer.step()
        grad_norm = torch.stack([g.norm() for g in grads]).norm()
        self.history["meta_grad_norm"].append(grad_norm)  # TLK301
        self.history["train"].append(train_loss.item())
        self.history["test"].append(test_loss.item())

    def fit(self, loader, epochs=1):
        for _ in range(epochs):
            for domain_batches in loader:
                self.step(domain_batches)
        return self.history
