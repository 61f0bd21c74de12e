# Layout modelled on pytorch/examples (mnist/main.py), the per-batch step imported from a
# sibling helper module.
import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers import Log, batch_loss


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    total_loss = 0.0
    log = Log()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        loss = batch_loss(model, data, target, optimizer, F.nll_loss)
        total_loss += loss  # expect-after-edit: TLK101 (clean before: the helper returns loss.item())
        log.record(loss)  # expect-after-edit: TLK102 (helpers.py)
    return total_loss / len(train_loader)


def main():
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10), nn.LogSoftmax(dim=1))
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    train(model, torch.device("cpu"), [], optimizer, 1)
