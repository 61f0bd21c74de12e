# Source: https://github.com/pytorch/pytorch/issues/45334
# Shape: the validation helper is decorated with @torch.inference_mode(), so summing the criterion's tensor output accumulates no graph.
# Verdict: clean
import torch
import torch.nn as nn


@torch.inference_mode()
def validate(net, loader, criterion):
    net.eval()
    test_loss = 0.0
    test_batches = 0
    for data in loader:
        inputs, labels = data["images"].cuda(), data["masks"].cuda()
        for idx in range(0, len(inputs), 7):
            outputs = net(inputs[idx:idx + 7])
            test_loss += criterion(outputs, labels[idx:idx + 7])
            test_batches += 1
    return test_loss / test_batches


def fit(net: nn.Module, train_loader, val_loader, epochs=10):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    for epoch in range(epochs):
        net.train()
        for data in train_loader:
            inputs, labels = data["images"].cuda(), data["masks"].cuda()
            optimizer.zero_grad()
            loss = criterion(net(inputs), labels)
            loss.backward()
            optimizer.step()
        print(epoch, validate(net, val_loader, criterion).item())
