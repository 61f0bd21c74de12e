# Source: https://github.com/pytorch/examples/blob/main/imagenet/main.py
# Shape: the same AverageMeter pattern, but the loop hands loss.item() to meter.update, so the meter only ever holds Python floats.
# Verdict: clean
import time

import torch


class AverageMeter:
    def __init__(self, name):
        self.name = name
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


def train(loader, model, criterion, optimizer, epoch):
    batch_time = AverageMeter("Time")
    losses = AverageMeter("Loss")
    top1 = AverageMeter("Acc@1")
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(loader):
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        acc1 = (output.argmax(1) == target).float().mean() * 100
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
    print(f"epoch {epoch} loss {losses.avg:.4f} acc {top1.avg:.2f}")
