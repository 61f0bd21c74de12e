# Layout modelled on kuangliu/pytorch-cifar (main.py with `from models import *` and its
# models/ package), plus a feature bank built from the trained network.
import torch
import torch.nn as nn
import torch.optim as optim

from models import *

net = ResNet18()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)


def train(trainloader):
    net.train()
    train_loss = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    return train_loss


def save_feature_bank(loader, path):
    bank = []
    frozen = []
    for inputs, _ in loader:
        bank.append(embed(net, inputs))  # expect: TLK102
        frozen.append(embed_frozen(net, inputs))  # clean: the helper runs under no_grad
    torch.save({"bank": bank, "frozen": frozen}, path)
