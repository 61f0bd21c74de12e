# Source: https://github.com/pytorch/pytorch/issues/7714
# Shape: the input-gradient penalty is built with autograd.grad(..., create_graph=True, retain_graph=True) and consumed by the single (loss_c + loss_g).backward() of the same step, so the double-backward graph lives for one iteration only; the loss is logged with .item().
# Verdict: clean
import torch
import torch.nn as nn
from torch import autograd

BATCH = 32


class SmallConvNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.Softplus(), nn.AvgPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.Softplus(), nn.AvgPool2d(2),
        )
        self.classifier = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def make_batches(n):
    g = torch.Generator().manual_seed(31)
    return [(torch.rand(BATCH, 3, 16, 16, generator=g), torch.randint(0, 10, (BATCH,), generator=g)) for _ in range(n)]


def train_step(net, opt, x, y, gp=True):
    x = x.clone().requires_grad_(True)
    opt.zero_grad()
    preds = net(x)
    loss_c = nn.CrossEntropyLoss()(preds, y)
    if gp:
        grad = autograd.grad(loss_c, x, create_graph=True, retain_graph=True, only_inputs=True)[0]
        loss_g = (grad ** 2).mean() * x.size(0)
        (loss_c + loss_g).backward()
    else:
        loss_c.backward()
    opt.step()
    return loss_c.item()


def run(steps):
    torch.manual_seed(0)
    net = SmallConvNet()
    opt = torch.optim.SGD(net.parameters(), 0.01, momentum=0.9, weight_decay=1e-4)
    history = [train_step(net, opt, x, y) for x, y in make_batches(steps)]
    return net, history


if __name__ == "__main__":
    print(run(5)[1])
