# Source: https://muttoni.github.io/blog/machine-learning/2021/01/08/Implementing-a-Learning-Rate-Finder-from-Scratch.html
# Shape: the LR finder's exponentially smoothed loss `avg_loss = beta * avg_loss + (1 - beta) * loss` is built from the attached loss tensor, so avg_loss (and every smoothed_loss kept for the plot) chains the graph of every mini-batch seen so far.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    batch_size = 32
    image_size = 16
    num_classes = 10
    init_value = 1e-5
    final_value = 1e-2
    beta = 0.98


class SimpleCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.dropout(torch.flatten(x, 1))
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, cfg):
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randn(cfg.batch_size, 3, cfg.image_size, cfg.image_size, generator=g)
    labels = torch.randint(0, cfg.num_classes, (cfg.batch_size,), generator=g)
    return inputs, labels


class LRFinder:
    """Leslie Smith's LR range test, as in Sylvain Gugger's post."""

    def __init__(self, model, optimizer, criterion, cfg):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.cfg = cfg

    def set_lr(self, lr):
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def find_lr(self, data_ld):
        cfg = self.cfg
        num = max(len(data_ld) - 1, 1)
        mult = (cfg.final_value / cfg.init_value) ** (1 / num)
        lr = cfg.init_value
        self.set_lr(lr)
        avg_loss = 0.0
        best_loss = 0.0
        batch_num = 0
        losses = []
        log_lrs = []
        self.model.train()
        for seed in data_ld:
            batch_num += 1
            inputs, labels = load_batch(seed, cfg)
            self.optimizer.zero_grad()
            outputs = self.model(inputs)
            loss = self.criterion(outputs, labels)
            # Compute the smoothed loss
            avg_loss = cfg.beta * avg_loss + (1 - cfg.beta) * loss  # TLK103
            smoothed_loss = avg_loss / (1 - cfg.beta ** batch_num)
            # Stop if the loss is exploding
            if batch_num > 1 and smoothed_loss > 4 * best_loss:
                break
            # Record the best loss
            if smoothed_loss < best_loss or batch_num == 1:
                best_loss = smoothed_loss
            # Store the values
            losses.append(smoothed_loss)
            log_lrs.append(math.log10(lr))
            # Do the SGD step
            loss.backward()
            self.optimizer.step()
            # Update the lr for the next step
            lr *= mult
            self.set_lr(lr)
        return log_lrs, losses


def suggest_lr(log_lrs, losses):
    # steepest descent of the smoothed curve, skipping the first few points
    best_i, best_slope = 0, float("inf")
    for i in range(1, len(losses)):
        slope = float(losses[i]) - float(losses[i - 1])
        if slope < best_slope:
            best_i, best_slope = i, slope
    return 10 ** log_lrs[best_i] if log_lrs else None


def run(batches):
    cfg = Config()
    model = SimpleCNN(cfg.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.init_value, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    finder = LRFinder(model, optimizer, criterion, cfg)
    log_lrs, losses = finder.find_lr(batches)
    suggested = suggest_lr(log_lrs, losses)
    return log_lrs, losses, suggested
