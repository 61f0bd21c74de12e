# Source: https://github.com/pytorch/pytorch/issues/6925
# Shape: losses.update gets loss.item(), so the AverageMeter sums Python floats; the accuracy meters get tensors computed under torch.no_grad, which carry no graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = {"num_classes": 5, "img": 8, "batch": 4, "lr": 0.05, "momentum": 0.9, "weight_decay": 1e-4,
        "print_freq": 5}


class AverageMeter:
    """Computes and stores the average and current value"""

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


class ProgressMeter:
    def __init__(self, num_batches, meters):
        self.num_batches, self.meters = num_batches, meters
        self.lines = []

    def display(self, batch):
        self.lines.append("[%d/%d] " % (batch, self.num_batches) + "\t".join(str(m) for m in self.meters))


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        _, pred = output.topk(maxk, 1, True, True)
        correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
        return [correct[:k].reshape(-1).float().sum(0, keepdim=True) * (100.0 / target.size(0)) for k in topk]


def small_resnet(num_classes):
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, num_classes))


def train(train_loader, model, criterion, optimizer, epoch, args):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    top5 = AverageMeter("Acc@5", ":6.2f")
    progress = ProgressMeter(len(train_loader), [losses, top1, top5])
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1[0], images.size(0))
        top5.update(acc5[0], images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % args["print_freq"] == 0:
            progress.display(i + 1)
    return losses.avg


def make_batches(n):
    a = ARGS
    return [(torch.randn(a["batch"], 3, a["img"], a["img"]), torch.randint(0, a["num_classes"], (a["batch"],)))
            for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = small_resnet(ARGS["num_classes"])
    optimizer = torch.optim.SGD(model.parameters(), ARGS["lr"], momentum=ARGS["momentum"],
                                weight_decay=ARGS["weight_decay"])
    train(batches, model, nn.CrossEntropyLoss(), optimizer, 0, ARGS)
