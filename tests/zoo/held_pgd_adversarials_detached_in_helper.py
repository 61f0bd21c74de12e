# Source: https://github.com/BorealisAI/advertorch/pull/68
# Shape: an iterative (PGD) attack helper whose gradients come from torch.autograd.grad and which returns x_adv.detach(); the evaluation loop keeps every adversarial batch and the per-batch robust losses as floats, so only the images themselves are stored.
# Verdict: clean
import torch
import torch.nn.functional as F


class LinfPGDAttack:
    def __init__(self, predict, eps=8 / 255, nb_iter=7, eps_iter=2 / 255, rand_init=True):
        self.predict = predict
        self.eps = eps
        self.nb_iter = nb_iter
        self.eps_iter = eps_iter
        self.rand_init = rand_init

    def perturb(self, x, y):
        delta = torch.empty_like(x).uniform_(-self.eps, self.eps) if self.rand_init else torch.zeros_like(x)
        for _ in range(self.nb_iter):
            delta.requires_grad_()
            adv_loss = F.cross_entropy(self.predict(x + delta), y)
            grad, = torch.autograd.grad(adv_loss, delta)
            delta = (delta.detach() + self.eps_iter * grad.sign()).clamp(-self.eps, self.eps)
            delta = (x + delta).clamp(0.0, 1.0) - x
        return (x + delta).detach()


def evaluate_robustness(model, loader, attack):
    model.eval()
    adv_batches, robust_losses, correct, total = [], [], 0, 0
    for inputs, targets in loader:
        adv_inputs = attack.perturb(inputs, targets)
        with torch.no_grad():
            logits = model(adv_inputs)
        robust_losses.append(F.cross_entropy(logits, targets).item())
        correct += (logits.argmax(1) == targets).sum().item()
        total += targets.numel()
        adv_batches.append(adv_inputs)
    return torch.cat(adv_batches), correct / total, sum(robust_losses) / len(robust_losses)
