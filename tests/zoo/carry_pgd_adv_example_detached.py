# Source: https://github.com/Harry24k/adversarial-attacks-pytorch/issues/57
# Shape: projected gradient attack that detaches the adversarial images after every update and re-enables grad at the top of the next step; each step's graph is freed (measured: 0 B/step)
# Verdict: clean
import torch
import torch.nn as nn


class PGD:
    def __init__(self, model, eps=8 / 255, alpha=2 / 255, steps=10):
        self.model, self.eps, self.alpha, self.steps = model, eps, alpha, steps
        self.loss_fn = nn.CrossEntropyLoss()

    def __call__(self, images, labels):
        images = images.clone().detach()
        adv = images + torch.empty_like(images).uniform_(-self.eps, self.eps)
        adv = torch.clamp(adv, 0, 1).detach()
        for _ in range(self.steps):
            adv.requires_grad = True
            cost = self.loss_fn(self.model(adv), labels)
            grad = torch.autograd.grad(cost, adv, retain_graph=False, create_graph=False)[0]
            adv = adv.detach() + self.alpha * grad.sign()
            delta = torch.clamp(adv - images, min=-self.eps, max=self.eps)
            adv = torch.clamp(images + delta, min=0, max=1).detach()
        return adv
