# Source: https://github.com/pytorch/pytorch/issues/20275
# Shape: a hand-written 2d batch norm updates its running mean/var in place inside a torch.no_grad() block in forward(), as suggested in the thread; the buffers stay plain tensors (measured: 0 B/iter)
# Verdict: clean
import torch
import torch.nn as nn


class MyBatchNorm2d(nn.BatchNorm2d):
    def forward(self, x):
        if self.training:
            mean = x.mean([0, 2, 3])
            var = x.var([0, 2, 3], unbiased=False)
            n = x.numel() / x.size(1)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var * n / (n - 1))
        else:
            mean, var = self.running_mean, self.running_var
        x = (x - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + self.eps)
        return x * self.weight[None, :, None, None] + self.bias[None, :, None, None]


net = nn.Sequential(nn.Conv2d(3, 16, 3), MyBatchNorm2d(16), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for imgs, labels in loader:
    loss = nn.functional.cross_entropy(net(imgs), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
