# Source: https://github.com/BorealisAI/advertorch/pull/68
# Shape: an FGSM helper returns the adversarial batch without detaching it (its graph reaches the input leaf, which holds the input gradient in .grad); the robustness report appends every adversarial batch to a list for later inspection, so each batch's input-gradient copy and graph stay alive for the whole test set.
# Verdict: leak
import torch
import torch.nn as nn


def fgsm_perturb(classifier, x, y, eps, loss_fn=None, clip_min=0.0, clip_max=1.0):
    loss_fn = loss_fn or nn.CrossEntropyLoss(reduction="sum")
    xadv = x.clone().requires_grad_()
    attack_loss = loss_fn(classifier(xadv), y)
    classifier.zero_grad()
    attack_loss.backward()
    grad_sign = xadv.grad.detach().sign()
    xadv = xadv + eps * grad_sign
    xadv = torch.clamp(xadv, clip_min, clip_max)
    return xadv


def robustness_report(classifier, test_loader, eps=8 / 255):
    classifier.eval()
    adversarials, clean_hits, adv_hits, seen = [], 0, 0, 0
    for images, labels in test_loader:
        x_adv = fgsm_perturb(classifier, images, labels, eps)
        with torch.no_grad():
            clean_hits += (classifier(images).argmax(1) == labels).sum().item()
            adv_hits += (classifier(x_adv).argmax(1) == labels).sum().item()
        adversarials.append(x_adv)  # TLK102
        seen += labels.numel()
    print(f"clean acc {clean_hits / seen:.3f}, FGSM(eps={eps:.4f}) acc {adv_hits / seen:.3f}")
    return torch.cat(adversarials), adv_hits / seen
