# Layout modelled on pytorch/examples (imagenet/main.py): the loop in main.py, its meters in
# a sibling module imported as a flat script (`from utils import ...`).
import torch
import torch.nn as nn
import torchvision.models as models

from utils import AverageMeter, accuracy


def train(train_loader, model, criterion, optimizer, epoch, device):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    model.train()
    for i, (images, target) in enumerate(train_loader):
        images = images.to(device)
        target = target.to(device)
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss, images.size(0))  # expect: TLK101 (utils.py)
        top1.update(acc1[0], images.size(0))  # clean: accuracy() runs under no_grad
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(val_loader, model, criterion, device):
    losses = AverageMeter("Loss", ":.4e")
    model.eval()
    with torch.no_grad():
        for images, target in val_loader:
            output = model(images.to(device))
            loss = criterion(output, target.to(device))
            losses.update(loss, images.size(0))  # clean: no graph under no_grad
    return losses.avg


def main():
    device = torch.device("cpu")
    model = models.resnet18()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)
    for epoch in range(90):
        train([], model, criterion, optimizer, epoch, device)
        validate([], model, criterion, device)


if __name__ == "__main__":
    main()
