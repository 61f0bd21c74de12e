import torch
import torch.nn as nn
import torch.nn.functional as F


class SegCriterion(nn.Module):
    """Cross entropy + soft Dice. Returns the total to backward and detached parts for logging."""

    def __init__(self, num_classes, dice_weight=0.5, ignore_index=255):
        super().__init__()
        self.num_classes = num_classes
        self.dice_weight = dice_weight
        self.ce = nn.CrossEntropyLoss(ignore_index=ignore_index)

    def dice(self, logits, target):
        probs = logits.softmax(1)
        onehot = F.one_hot(target.clamp(max=self.num_classes - 1), self.num_classes).permute(0, 3, 1, 2).float()
        inter = (probs * onehot).sum((0, 2, 3))
        denom = probs.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
        return 1.0 - ((2 * inter + 1.0) / (denom + 1.0)).mean()

    def forward(self, logits, target):
        ce = self.ce(logits, target)
        dice = self.dice(logits, target)
        total = ce + self.dice_weight * dice
        return total, {"ce": ce.detach(), "dice": dice.detach()}


class PolyLR(torch.optim.lr_scheduler.LambdaLR):
    def __init__(self, optimizer, max_iters, power=0.9):
        super().__init__(optimizer, lambda it: max(1 - it / max(max_iters, 1), 0.0) ** power)
