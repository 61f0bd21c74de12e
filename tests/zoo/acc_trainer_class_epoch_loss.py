# Source: https://github.com/zoogzog/chexnet/issues/12
# Shape: a Trainer class whose train_epoch method adds the loss tensor to an attribute every batch; the attribute is only reset once per epoch, so it chains every batch's graph.
# Verdict: leak
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 1e-4):
        self.model = model
        self.criterion = nn.BCELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.epoch_loss = 0.0

    def train_epoch(self, loader):
        self.model.train()
        self.epoch_loss = 0.0
        for images, labels in loader:
            images = images.cuda(non_blocking=True)
            labels = labels.cuda(non_blocking=True)
            scores = self.model(images)
            loss = self.criterion(scores, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.epoch_loss += loss  # TLK101
        return self.epoch_loss / len(loader)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            mean_loss = self.train_epoch(loader)
            print(epoch, float(mean_loss))
