# Source: https://github.com/kazuto1011/deeplab-pytorch/issues/84
# Shape: the micro-batch losses are summed into an attached tensor across iter_size and backwarded once per iteration (sum backwarded later); only float values reach the meter, so the graph is freed every iteration.
# Verdict: clean
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class MovingAverageValueMeter:
    """torchnet.meter.MovingAverageValueMeter stand-in."""

    def __init__(self, windowsize):
        self.values = deque(maxlen=windowsize)

    def add(self, value):
        self.values.append(value)

    def value(self):
        return sum(self.values) / max(len(self.values), 1), 0.0


class TinyDeepLab(nn.Module):
    def __init__(self, n_classes=5, width=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU())
        self.aspp = nn.Conv2d(width, n_classes, 1)

    def forward(self, x):
        return self.aspp(self.encoder(x))


class MSC(nn.Module):
    """Multi-scale inputs; returns [logits_100%, logits_75%, logits_50%, logits_max] in training."""

    def __init__(self, base, scales=(0.5, 0.75)):
        super().__init__()
        self.base = base
        self.scales = scales

    def forward(self, x):
        logits = self.base(x)
        _, _, H, W = logits.shape
        interp = lambda l: F.interpolate(l, size=(H, W), mode="bilinear", align_corners=False)
        logits_pyramid = [self.base(F.interpolate(x, scale_factor=p, mode="bilinear", align_corners=False)) for p in self.scales]
        logits_max = torch.max(torch.stack([logits] + [interp(l) for l in logits_pyramid]), dim=0)[0]
        if self.training:
            return [logits] + logits_pyramid + [logits_max]
        return logits_max


def resize_labels(labels, size):
    return F.interpolate(labels.unsqueeze(1).float(), size=size, mode="nearest").squeeze(1).long()


def make_batches(n, batch_size=2, size=32, n_classes=5):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, 3, size, size, generator=g), torch.randint(0, n_classes, (batch_size, size, size), generator=g)) for _ in range(n)]


def train(model, optimizer, criterion, batches, iter_max, iter_size):
    loader_iter = iter(batches)
    average_loss = MovingAverageValueMeter(20)
    model.train()
    for iteration in range(1, iter_max + 1):
        optimizer.zero_grad()
        loss = 0
        accum_loss = 0
        for _ in range(iter_size):
            try:
                images, labels = next(loader_iter)
            except StopIteration:
                loader_iter = iter(batches)
                images, labels = next(loader_iter)

            logits = model(images)
            iter_loss = 0
            for logit in logits:
                # Resize labels for {100%, 75%, 50%, Max} logits
                _, _, H, W = logit.shape
                labels_ = resize_labels(labels, size=(H, W))
                iter_loss += criterion(logit, labels_)

            iter_loss /= iter_size
            accum_loss = accum_loss + iter_loss
            loss += float(iter_loss)

        # Propagate backward once for the whole accumulated batch
        accum_loss.backward()
        average_loss.add(loss)
        optimizer.step()
    return average_loss


def run(steps):
    torch.manual_seed(0)
    model = MSC(TinyDeepLab())
    optimizer = torch.optim.SGD(model.parameters(), lr=2.5e-4, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    meter = train(model, optimizer, criterion, make_batches(8), iter_max=steps, iter_size=2)
    return {"model": model, "average_loss": meter}


if __name__ == "__main__":
    print(run(3)["average_loss"].value())
