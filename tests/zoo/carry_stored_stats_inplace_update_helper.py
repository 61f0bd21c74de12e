# Source: https://github.com/facebookresearch/synsin/pull/20
# Shape: a custom batch norm in a view-synthesis encoder keeps stored statistics for inference in registered buffers and updates them in place through a small helper method that forward calls with the batch mean and variance; nothing disables grad there, so each in-place update records the attached batch statistics and the buffers chain every forward's graph (several MB per second in the report).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class StoredStatsBatchNorm(nn.Module):
    def __init__(self, num_features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("stored_mean", torch.zeros(num_features))
        self.register_buffer("stored_var", torch.ones(num_features))
        self.momentum = momentum
        self.eps = eps

    def _track(self, mean, var):
        self.stored_mean.mul_(1 - self.momentum).add_(self.momentum * mean)  # TLK103
        self.stored_var.mul_(1 - self.momentum).add_(self.momentum * var)  # TLK103

    def forward(self, x):
        if self.training:
            mean = x.mean(dim=(0, 2, 3))
            var = x.var(dim=(0, 2, 3), unbiased=False)
            self._track(mean, var)
        else:
            mean, var = self.stored_mean, self.stored_var
        x_hat = (x - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + self.eps)
        return self.weight[None, :, None, None] * x_hat + self.bias[None, :, None, None]


class ResBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm1 = StoredStatsBatchNorm(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm2 = StoredStatsBatchNorm(channels)

    def forward(self, x):
        h = F.relu(self.norm1(self.conv1(x)))
        return F.relu(x + self.norm2(self.conv2(h)))


def train(encoder, loader, epochs=1, lr=1e-4):
    optimizer = torch.optim.Adam(encoder.parameters(), lr=lr)
    for _ in range(epochs):
        for images, targets in loader:
            optimizer.zero_grad()
            loss = F.l1_loss(encoder(images), targets)
            loss.backward()
            optimizer.step()
