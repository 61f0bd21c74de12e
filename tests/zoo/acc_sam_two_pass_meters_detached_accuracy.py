# Source: https://github.com/davda54/sam/issues/45
# Shape: sharpness-aware minimisation runs two forward-backward passes per batch (the second on a fresh forward), then records the loss with .item() and the top-1/top-5 accuracy tensors in average meters; the accuracies come from topk indices compared with the targets, so the meters accumulate tensors that carry no graph.
# Verdict: clean
import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0, keepdim=True) * (100.0 / target.size(0)) for k in topk]


def train(loader, model, criterion, optimizer, epoch):
    losses, top1, top5 = AverageMeter("Loss"), AverageMeter("Acc@1"), AverageMeter("Acc@5")
    model.train()
    for images, target in loader:
        output = model(images)
        loss = criterion(output, target)
        loss.backward()
        optimizer.first_step(zero_grad=True)

        criterion(model(images), target).backward()
        optimizer.second_step(zero_grad=True)

        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1[0], images.size(0))
        top5.update(acc5[0], images.size(0))
    print(f"epoch {epoch}: loss {losses.avg:.4f} acc@1 {float(top1.avg):.2f} acc@5 {float(top5.avg):.2f}")
