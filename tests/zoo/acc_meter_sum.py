# Source: https://github.com/Lightning-AI/torchmetrics/issues/890
# Shape: AverageMeter.update() does self.sum += val * n with the attached loss tensor, so the meter's running sum chains every batch's loss graph.
# Verdict: leak
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = 0.0
        self.avg = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def accuracy(output, target):
    with torch.no_grad():
        return (output.argmax(dim=1) == target).float().mean().item() * 100.0


def train(loader, model, criterion, optimizer):
    batch_time = AverageMeter("Time", ":6.3f")
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    model.train()
    end = time.time()
    for images, target in loader:
        output = model(images)
        loss = criterion(output, target)
        losses.update(loss, images.size(0))  # TLK101
        top1.update(accuracy(output, target), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
    return top1.avg


def make_batches(n, bs=8):
    return [(torch.randn(bs, 1, 8, 8), torch.randint(0, 5, (bs,))) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = SmallConvNet()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    train(batches, model, criterion, optimizer)
