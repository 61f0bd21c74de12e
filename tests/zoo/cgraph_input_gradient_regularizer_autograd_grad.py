# Source: https://github.com/pytorch/pytorch/issues/2361
# Shape: the double-backpropagation trainer written as in the report's repro: the input gradient comes from torch.autograd.grad(loss, x, create_graph=True), which returns it instead of storing it in x.grad, and the loss plus the input-gradient penalty is backwarded once; no .grad field holds a graph, so nothing outlives the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallConvNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.Softplus(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, 1, 1), nn.Softplus())
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))


class DoubleBackpropTrainer:
    def __init__(self, model, lam=0.1, lr=0.05):
        self.model, self.lam = model, lam
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def train_step(self, x, y):
        x = x.clone().requires_grad_(True)
        self.optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self.model(x), y)
        (input_grad,) = torch.autograd.grad(loss, x, create_graph=True)
        grad_penalty = input_grad.pow(2).sum(dim=(1, 2, 3)).mean()
        (loss + self.lam * grad_penalty).backward()
        self.optimizer.step()
        return loss.item(), grad_penalty.item()

    def fit(self, loader, epochs=1):
        history = []
        for epoch in range(epochs):
            for x, y in loader:
                history.append(self.train_step(x, y))
        return history


if __name__ == "__main__":
    loader = [(torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))) for _ in range(4)]
    DoubleBackpropTrainer(SmallConvNet()).fit(loader)
