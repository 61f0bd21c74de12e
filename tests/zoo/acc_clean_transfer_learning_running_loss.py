# Source: https://androidkt.com/how-to-calculate-running-loss-using-loss-item-in-pytorch/
# Shape: train_model accumulates running_loss with loss.item() * inputs.size(0) and running_corrects from argmax predictions (no grad), and the validation phase runs under torch.set_grad_enabled(False), so nothing the loop keeps is attached to a graph.
# Verdict: clean
import copy
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.avgpool(self.features(x)), 1))


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, bs=16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(bs, 3, 24, 24, generator=g), torch.randint(0, 5, (bs,), generator=g)


def train_model(model, criterion, optimizer, scheduler, dataloaders, dataset_sizes, device, num_epochs=1):
    since = time.time()
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0
    history = {"train": [], "val": []}

    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()  # Set model to training mode
            else:
                model.eval()   # Set model to evaluate mode

            running_loss = 0.0
            running_corrects = 0

            # Iterate over data.
            for inputs, labels in dataloaders[phase]():
                inputs = inputs.to(device)
                labels = labels.to(device)

                # zero the parameter gradients
                optimizer.zero_grad()

                # forward; track history if only in train
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)

                    # backward + optimize only if in training phase
                    if phase == "train":
                        loss.backward()
                        optimizer.step()

                # statistics
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == "train":
                scheduler.step()

            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]
            history[phase].append((epoch_loss, epoch_acc.item()))

            # deep copy the model
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())

    time_elapsed = time.time() - since
    model.load_state_dict(best_model_wts)
    return model, history, time_elapsed


def run(batches):
    device = torch.device("cpu")
    model = SmallNet().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    val_seeds = [10_000, 10_001]
    dataloaders = {
        "train": lambda: (load_batch(s) for s in batches),
        "val": lambda: (load_batch(s) for s in val_seeds),
    }
    dataset_sizes = {"train": 16 * len(batches), "val": 16 * len(val_seeds)}
    model, history, _ = train_model(model, criterion, optimizer, scheduler, dataloaders, dataset_sizes, device)
    return history
