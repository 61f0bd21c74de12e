# Source: https://github.com/MultimediaTechLab/YOLO/pull/83
# Shape: Compute_loss returns (total, dict of parts) and the epoch loop sums each part into a defaultdict(float) without .item(), so every entry becomes a growing tensor chain.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Detector(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(8, n_cls, 1)
        self.box_head = nn.Conv2d(8, 4, 1)

    def forward(self, img):
        f = self.stem(img)
        return self.cls_head(f), self.box_head(f)


def compute_loss(outputs, targets, box_gain=5.0):
    cls_logits, box_pred = outputs
    cls_t, box_t = targets
    loss_cls = F.cross_entropy(cls_logits, cls_t)
    loss_box = F.l1_loss(box_pred, box_t)
    loss_iou = (1 - F.cosine_similarity(box_pred.flatten(1), box_t.flatten(1))).mean()
    total = loss_cls + box_gain * loss_box + loss_iou
    return total, {"cls": loss_cls, "box": loss_box, "iou": loss_iou}


class DetTrainer:
    def __init__(self, net):
        self.net = net
        self.optim = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def train_one_epoch(self, loader):
        self.net.train()
        epoch_totals = defaultdict(float)
        n_seen = 0
        for img, cls_t, box_t in loader:
            bs = img.size(0)
            total, parts = compute_loss(self.net(img), (cls_t, box_t))
            self.optim.zero_grad()
            total.backward()
            self.optim.step()
            for name, val in parts.items():
                epoch_totals[name] += val * bs  # TLK101
            n_seen += bs
        return {k: float(v) / n_seen for k, v in epoch_totals.items()}


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(2, 3, 8, 8, generator=g), torch.randint(0, 4, (2, 8, 8), generator=g), torch.rand(2, 4, 8, 8, generator=g))
        for _ in range(n)
    ]


def run(batches):
    torch.manual_seed(0)
    stats = DetTrainer(Detector()).train_one_epoch(batches)
    print({k: round(v, 4) for k, v in stats.items()})


if __name__ == "__main__":
    run(make_batches())
