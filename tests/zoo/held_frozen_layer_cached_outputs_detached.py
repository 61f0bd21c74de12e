# Source: https://discuss.pytorch.org/t/cuda-out-of-memory-error-understanding-how-pytorch-stores-class-variable/13778
# Shape: the progressively frozen DenseNet bottleneck caches a detached copy of its output per batch in the class-level list (what the replay needs: values, no history); the current batch still backwards through the attached output it returns.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Bottleneck(nn.Module):
    cached = []

    def __init__(self, channels, growth, batches_per_epoch):
        super().__init__()
        inter = 4 * growth
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv1 = nn.Conv2d(channels, inter, kernel_size=1, bias=False)
        self.bn2 = nn.BatchNorm2d(inter)
        self.conv2 = nn.Conv2d(inter, growth, kernel_size=3, padding=1, bias=False)
        self.active = True
        self.slot = 0
        self.batches_per_epoch = batches_per_epoch
        Bottleneck.cached = [None] * batches_per_epoch

    def forward(self, x):
        if self.active:
            out = self.conv1(F.relu(self.bn1(x)))
            out = self.conv2(F.relu(self.bn2(out)))
            out = torch.cat((x, out), 1)
            Bottleneck.cached[self.slot] = out.detach()
            self.slot += 1
            if self.slot >= self.batches_per_epoch:
                self.slot = 0
                self.active = False
            return out
        replay = Bottleneck.cached[self.slot]
        self.slot = (self.slot + 1) % self.batches_per_epoch
        return replay


class TinyDenseNet(nn.Module):
    def __init__(self, batches_per_epoch, growth=12, n_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 2 * growth, kernel_size=3, padding=1, bias=False)
        self.block = Bottleneck(2 * growth, growth, batches_per_epoch)
        self.head = nn.Linear(3 * growth, n_classes)

    def forward(self, x):
        out = self.block(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(out, 1).flatten(1))


def train(net, loader, epochs=2):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(epochs):
        for images, labels in loader:
            opt.zero_grad()
            loss = F.cross_entropy(net(images), labels)
            loss.backward()
            opt.step()
