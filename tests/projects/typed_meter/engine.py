import torch
import torch.nn.functional as F

from meters import RunningAverage


def train_one_epoch(model, loader, optimizer, losses: RunningAverage, accuracy: RunningAverage) -> float:
    model.train()
    for images, targets in loader:
        logits = model(images)
        loss = F.cross_entropy(logits, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.add(loss, images.size(0))  # expect: TLK101 (meters.py)
        accuracy.add((logits.argmax(1) == targets).float().mean().item(), images.size(0))
    return losses.average


def evaluate(model, loader, losses: RunningAverage) -> float:
    model.eval()
    with torch.no_grad():
        for images, targets in loader:
            losses.add(F.cross_entropy(model(images), targets), images.size(0))
    return losses.average
