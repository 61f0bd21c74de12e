"""Loss functions and the (differentiable) training metric."""
import torch
import torch.nn.functional as F


def cross_entropy(logits: torch.Tensor, labels: torch.Tensor, ignore_index: int = 255):
    """Pixel-wise CE; logits [N, K], labels [N]."""
    return F.cross_entropy(logits, labels, ignore_index=ignore_index)


def prototype_loss(feats: torch.Tensor, prototypes: torch.Tensor, labels: torch.Tensor,
                   temperature: float = 0.1):
    """Pulls every pixel embedding towards its class prototype (InfoNCE over classes)."""
    feats = F.normalize(feats, dim=-1)
    protos = F.normalize(prototypes, dim=-1)
    sim = feats @ protos.t() / temperature
    return F.cross_entropy(sim, labels)


def soft_dice(probs: torch.Tensor, labels: torch.Tensor, num_classes: int, eps: float = 1e-6):
    """Mean soft Dice over classes; probs [N, K], labels [N]."""
    onehot = F.one_hot(labels, num_classes).to(probs.dtype)
    inter = (probs * onehot).sum(0)
    denom = probs.sum(0) + onehot.sum(0)
    return ((2 * inter + eps) / (denom + eps)).mean()


def weight_reduce_loss(loss: torch.Tensor, weight: float = 1.0):
    return loss * weight
