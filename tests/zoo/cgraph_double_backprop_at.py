# Source: https://github.com/pytorch/pytorch/issues/82528
# Shape: input-gradient-regularised (double backprop) robust training calls loss.backward(create_graph=True) to get x.grad; param.grad now carries a graph, and the in-place .data.zero_() helper keeps that grad tensor, so every step's graph is chained onto the parameters.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.Softplus(),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.Softplus(),
                                      nn.AdaptiveAvgPool2d(4))
        self.classifier = nn.Sequential(nn.Linear(16 * 16, 64), nn.Softplus(), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class GradRegTrainer:
    """Double backpropagation (Drucker & LeCun) / input-gradient regularisation."""

    def __init__(self, model, lr=0.05, lambda_gr=0.1):
        self.model = model
        self.lambda_gr = lambda_gr
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.losses = AverageMeter()
        self.penalties = AverageMeter()

    def _fast_zero_grad(self):
        # cheaper than optimizer.zero_grad(): reuse the existing grad buffers
        for p in self.model.parameters():
            if p.grad is not None:
                p.grad.data.zero_()

    def input_gradient_penalty(self, x, y):
        x = x.clone().requires_grad_(True)
        logits = self.model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward(create_graph=True)  # TLK302
        grad_x = x.grad
        penalty = grad_x.pow(2).flatten(1).sum(1).mean()
        return loss, penalty

    def train_step(self, x, y):
        self.model.train()
        self._fast_zero_grad()
        loss, penalty = self.input_gradient_penalty(x, y)
        (self.lambda_gr * penalty).backward()
        self.optimizer.step()
        self.losses.update(loss.item(), x.size(0))
        self.penalties.update(penalty.item(), x.size(0))


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (16,), generator=g) for _ in range(n)]


def run(batches):
    data = torch.rand(256, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    targets = torch.randint(0, 10, (256,), generator=torch.Generator().manual_seed(2))
    trainer = GradRegTrainer(SmallCNN())
    for idx in batches:
        trainer.train_step(data[idx], targets[idx])
    return trainer.losses.avg, trainer.penalties.avg
