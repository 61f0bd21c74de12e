# Source: https://github.com/pytorch/pytorch/issues/96722
# Shape: an MNIST script registers forward hooks that append each hooked layer's output to a list that main() passes into train(); train() clears the list at the top of every batch, so it never holds more than the current step's activations.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return F.log_softmax(self.fc2(x), dim=1)


def register_activation_hooks(model, activations):
    def save_output(module, inputs, output):
        activations.append(output)

    for layer in (model.conv1, model.conv2, model.fc1):
        layer.register_forward_hook(save_output)


def train(model, device, train_loader, optimizer, epoch, activations, log_interval=10):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        activations.clear()
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.6f} ({len(activations)} activations)")


def main(train_loader, device, epochs=14):
    model = Net().to(device)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    activations = []
    register_activation_hooks(model, activations)
    for epoch in range(1, epochs + 1):
        train(model, device, train_loader, optimizer, epoch, activations)
