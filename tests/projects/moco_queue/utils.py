"""Meters for the progress line and the contrastive accuracy."""
import torch


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f"):
        self.name = name
        self.fmt = fmt
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
        return "{} {:.4f} ({:.4f})".format(self.name, float(self.val), float(self.avg))


class ProgressMeter:
    def __init__(self, num_batches, meters, prefix=""):
        self.num_batches = num_batches
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + "[{}/{}]".format(batch, self.num_batches)]
        entries += [str(meter) for meter in self.meters]
        print("\t".join(entries))


def accuracy(output, target, topk=(1,)):
    """Top-k accuracy of the (K+1)-way contrast classifier, in percent."""
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
