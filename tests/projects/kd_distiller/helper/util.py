# Modelled on helper/util.py of HobbitLong/RepDistiller: the step learning-rate schedule, the
# AverageMeter every loop uses, top-k accuracy under no_grad; plus a calibration recorder that
# keeps the epoch's logits to compute the expected calibration error at its end.
import torch
import torch.nn.functional as F


def adjust_learning_rate(epoch, learning_rate, lr_decay_epochs, optimizer, lr_decay_rate=0.1):
    steps = sum(1 for boundary in lr_decay_epochs if epoch > boundary)
    if steps > 0:
        new_lr = learning_rate * (lr_decay_rate ** steps)
        for param_group in optimizer.param_groups:
            param_group["lr"] = new_lr


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self):
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


class CalibrationRecorder:
    """Keeps (logits, targets) per batch; ece() bins the confidences at the end of the epoch."""

    def __init__(self, n_bins=10):
        self.n_bins = n_bins
        self.logits = []
        self.targets = []

    def add(self, logits, targets):
        self.logits.append(logits)
        self.targets.append(targets)

    def ece(self):
        if not self.logits:
            return 0.0
        with torch.no_grad():
            probs = F.softmax(torch.cat(self.logits), dim=1)
            targets = torch.cat(self.targets)
            confidence, prediction = probs.max(dim=1)
            correct = prediction.eq(targets).float()
            edges = torch.linspace(0, 1, self.n_bins + 1)
            error = torch.zeros(())
            for low, high in zip(edges[:-1], edges[1:]):
                in_bin = (confidence > low) & (confidence <= high)
                if in_bin.any():
                    error += in_bin.float().mean() * (confidence[in_bin].mean() - correct[in_bin].mean()).abs()
        return float(error)


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res
