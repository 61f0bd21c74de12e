"""Meters and metrics."""
import torch


class AverageMeter:
    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(
            name=self.name, val=float(self.val), avg=float(self.avg))


@torch.no_grad()
def accuracy(output, target):
    pred = output.argmax(dim=1)
    return pred.eq(target).float().mean() * 100.0


class FeatureBank:
    """Collects features for a t-SNE / A-distance analysis after training."""

    def __init__(self):
        self.feats = []

    def add(self, f):
        self.feats.append(f)

    def stacked(self):
        return torch.cat(self.feats) if self.feats else torch.empty(0)
