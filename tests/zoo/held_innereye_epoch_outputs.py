# Source: https://github.com/microsoft/InnerEye-DeepLearning/pull/209
# Shape: every training step appends a ModelOutput holding the attached segmentation logits to a results list that is kept on the trainer across epochs for Dice computation, so each step's forward graph stays alive.
# Verdict: leak
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

MODEL_CONFIG = {"channels": 1, "classes": 3, "size": 12, "batch": 2, "lr": 1e-3, "epochs": 1}


class UNetLite(nn.Module):
    def __init__(self, c_in, n_cls):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(c_in, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.out = nn.Conv2d(16, n_cls, 1)

    def forward(self, x):
        e = self.enc(x)
        d = F.relu(self.down(e))
        return self.out(torch.cat([e, self.up(d)], 1))


@dataclass
class ModelOutput:
    epoch: int
    logits: torch.Tensor
    labels: torch.Tensor
    loss: float


@dataclass
class EpochResults:
    outputs: List[ModelOutput] = field(default_factory=list)

    def dice(self, n_cls):
        scores = []
        for out in self.outputs:
            pred = out.logits.argmax(1)
            for c in range(1, n_cls):
                inter = ((pred == c) & (out.labels == c)).sum().item()
                denom = (pred == c).sum().item() + (out.labels == c).sum().item()
                scores.append(2 * inter / denom if denom else 1.0)
        return sum(scores) / max(len(scores), 1)


class ModelTrainingStep:
    def __init__(self, config):
        self.config = config
        self.model = UNetLite(config["channels"], config["classes"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config["lr"])
        self.results = EpochResults()
        self.metrics = []

    def forward_and_backward(self, epoch, image, labels):
        logits = self.model(image)
        loss = F.cross_entropy(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.results.outputs.append(ModelOutput(epoch, logits, labels, loss.item()))  # TLK102

    def train_epoch(self, epoch, loader):
        self.model.train()
        for batch in loader:
            self.forward_and_backward(epoch, batch["image"], batch["labels"])
        self.metrics.append({"epoch": epoch, "dice": self.results.dice(self.config["classes"])})


def make_batches(n):
    c = MODEL_CONFIG
    return [{"image": torch.randn(c["batch"], c["channels"], c["size"], c["size"]),
             "labels": torch.randint(0, c["classes"], (c["batch"], c["size"], c["size"]))}
            for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    step = ModelTrainingStep(MODEL_CONFIG)
    for epoch in range(MODEL_CONFIG["epochs"]):
        step.train_epoch(epoch, batches)
