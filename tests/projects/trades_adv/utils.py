# Helpers of the training script: the AverageMeter of pytorch/examples that TRADES' forks log
# with, and a recorder of the attacked logits per test batch (for a per-class robust error at the
# end of the evaluation).
import torch


class AverageMeter:
    def __init__(self):
        self.val = 0
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class RobustErrorRecorder:
    def __init__(self, num_classes=10):
        self.num_classes = num_classes
        self.logits = []
        self.targets = []

    def add(self, logits, target):
        self.logits.append(logits)  # expect: TLK102 (train_trades.py)
        self.targets.append(target)

    def per_class_error(self):
        predictions = torch.cat(self.logits).argmax(1)
        targets = torch.cat(self.targets)
        errors = torch.zeros(self.num_classes)
        for label in range(self.num_classes):
            chosen = targets == label
            if chosen.any():
                errors[label] = (predictions[chosen] != label).float().mean()
        return errors
