# Source: https://github.com/MultimediaTechLab/YOLO/pull/83
# Shape: per-term detection losses are summed into a defaultdict of device tensors for epoch logging, weighted by batch size, without .item(); each term keeps its step's graph.
# Verdict: leak
from collections import defaultdict

import torch


class DetectionTrainer:
    def __init__(self, model, loss_fn, optimizer, device):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = device

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0
        for images, targets in dataloader:
            images = images.to(self.device)
            targets = targets.to(self.device)
            predictions = self.model(images)
            loss, loss_terms = self.loss_fn(predictions, targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            batch_size = images.size(0)
            for name, value in loss_terms.items():
                total_loss[name] += value * batch_size  # TLK101
            total_samples += batch_size
        return {name: (value / total_samples).item() for name, value in total_loss.items()}
