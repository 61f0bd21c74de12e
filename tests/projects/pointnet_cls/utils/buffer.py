# Hard-example and feature memories for point-cloud training: HardExampleBuffer keeps the
# hardest sample of each batch for later inspection (as hard-example-mining forks of the
# PointNet trainers do); FeatureBank is a MoCo/instance-discrimination style bank of
# normalised global features, written under no_grad.
import torch
import torch.nn.functional as F


class HardExampleBuffer(object):
    def __init__(self, capacity=10000):
        self.capacity = capacity
        self.items = []

    def add(self, points, logits, target):
        per_sample = F.nll_loss(logits, target, reduction='none')
        idx = int(per_sample.argmax())
        self.items.append((points[idx], logits[idx], target[idx]))
        if len(self.items) > self.capacity:
            self.items.pop(0)


class FeatureBank(object):
    def __init__(self, size, dim):
        self.bank = torch.zeros(size, dim)
        self.labels = torch.zeros(size, dtype=torch.long)
        self.ptr = 0

    @torch.no_grad()
    def update(self, feat, target):
        n = feat.size(0)
        idx = torch.arange(self.ptr, self.ptr + n) % self.bank.size(0)
        self.bank[idx] = F.normalize(feat, dim=1)
        self.labels[idx] = target
        self.ptr = (self.ptr + n) % self.bank.size(0)
