# Source: https://github.com/LostOxygen/poison_froggo/issues/1
# Shape: projected gradient attack updates the adversarial images from themselves each step without detaching, so every step's projection ops chain to the previous step (measured: +4 image-sized tensors kept per step, 32,768 B/step for a 32x64 batch; with loss.backward() instead of autograd.grad it raises on step 3)
# Verdict: leak
import torch
import torch.nn.functional as F


def pgd_attack(model, images, labels, eps=8 / 255, alpha=2 / 255, steps=40):
    lower = (images - eps).clamp(0, 1)
    upper = (images + eps).clamp(0, 1)
    adv = images.clone().requires_grad_(True)
    for _ in range(steps):
        loss = F.cross_entropy(model(adv), labels)
        grad, = torch.autograd.grad(loss, adv)
        adv = torch.min(torch.max(adv + alpha * grad.sign(), lower), upper)  # TLK103
    return adv


def adversarial_training(model, loader, optimizer):
    for images, labels in loader:
        adv_images = pgd_attack(model, images, labels)
        loss = F.cross_entropy(model(adv_images.detach()), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
