# Source: https://github.com/growingnet/gromo/issues/135
# Shape: intermediate activations are collected into a module-level list during forward for an auxiliary loss, consumed by the backward, and the list is cleared at the end of every step.
# Verdict: clean
import torch
import torch.nn as nn

block_outputs = []


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        block_outputs.append(y)
        return y


def train(loader, width=64, depth=6, sparsity=1e-3):
    net = nn.Sequential(*[Block(width) for _ in range(depth)], nn.Linear(width, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for x, y in loader:
        pred = net(x)
        activity_penalty = sum(h.abs().mean() for h in block_outputs)
        loss = nn.functional.mse_loss(pred, y) + sparsity * activity_penalty
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        block_outputs.clear()
