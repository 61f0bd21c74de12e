# Source: https://github.com/pytorch/pytorch/issues/2361
# Shape: a double-backpropagation trainer (input-gradient regularisation) gets the input gradient by calling loss.backward(create_graph=True) on a batch made to require grad and reading x.grad; optimizer.zero_grad() resets the parameters' grads every step, but each batch's x keeps a reference cycle x -> x.grad -> its double-backward graph -> x that Python cannot collect, so one graph per step is never freed.
# Verdict: leak
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
        loss.backward(create_graph=True)  # TLK302
        grad_penalty = x.grad.pow(2).sum(dim=(1, 2, 3)).mean()
        (self.lam * grad_penalty).backward()
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
