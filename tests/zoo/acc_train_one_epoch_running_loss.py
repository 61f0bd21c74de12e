# Source: https://github.com/JIA-Lab-research/DecoupleNet/issues/3
# Shape: train_one_epoch helper sums the backwarded loss tensor (not .item()) into an epoch total, so every step's autograd graph stays reachable until the epoch ends.
# Verdict: leak
import torch
import torch.nn as nn


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running_loss = 0.0
    n_correct = 0
    n_seen = 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        logits = model(images)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss  # TLK101
        n_correct += (logits.argmax(dim=1) == labels).sum().item()
        n_seen += labels.size(0)
    return running_loss / len(loader), n_correct / n_seen


def main(train_loader, epochs=10):
    model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        avg_loss, acc = train_one_epoch(model, train_loader, optimizer, criterion, "cuda")
        print(f"epoch {epoch}: loss {float(avg_loss):.4f} acc {acc:.3f}")
