# Source: https://github.com/pytorch/pytorch/issues/20275
# Shape: A hand-written BatchNorm1d in a small audio classifier reassigns its running-stat buffers from undetached batch statistics, extending one graph chain per training step.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class MyBatchNorm1d(nn.Module):
    def __init__(self, channels, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x):
        # x: (B, C, T)
        if self.training:
            mean = x.mean(dim=(0, 2))
            var = x.var(dim=(0, 2), unbiased=False)
            m = self.momentum
            self.running_mean = (1 - m) * self.running_mean + m * mean  # TLK103
            self.running_var = (1 - m) * self.running_var + m * var  # TLK103
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean[None, :, None]) / torch.sqrt(var[None, :, None] + self.eps)
        return x_hat * self.weight[None, :, None] + self.bias[None, :, None]


class KeywordNet(nn.Module):
    def __init__(self, n_mels=8, channels=16, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, channels, 3, padding=1)
        self.bn1 = MyBatchNorm1d(channels)
        self.conv2 = nn.Conv1d(channels, channels, 3, padding=1)
        self.bn2 = MyBatchNorm1d(channels)
        self.fc = nn.Linear(channels, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean(dim=2))


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = {"loss": [], "acc": []}

    def train_epoch(self, loader):
        self.model.train()
        for spec, label in loader:
            logits = self.model(spec)
            loss = F.cross_entropy(logits, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.history["loss"].append(loss.item())
            self.history["acc"].append((logits.argmax(1) == label).float().mean().item())

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = total = 0
        for spec, label in loader:
            correct += (self.model(spec).argmax(1) == label).sum().item()
            total += label.numel()
        return correct / max(total, 1)

    def fit(self, train_loader, val_loader, epochs=1):
        for epoch in range(epochs):
            self.train_epoch(train_loader)
            print(f"epoch {epoch}: loss {self.history['loss'][-1]:.3f} val acc {self.evaluate(val_loader):.3f}")


def make_batches(n=24, seed=0, bs=16, n_mels=8, frames=20):
    g = torch.Generator().manual_seed(seed)
    protos = torch.randn(4, n_mels, 1, generator=g)
    out = []
    for _ in range(n):
        y = torch.randint(0, 4, (bs,), generator=g)
        x = protos[y] + 0.8 * torch.randn(bs, n_mels, frames, generator=g)
        out.append((x, y))
    return out


def run(batches):
    torch.manual_seed(0)
    trainer = Trainer(KeywordNet())
    trainer.fit(batches, make_batches(n=2, seed=1))
    return trainer.history


if __name__ == "__main__":
    run(make_batches())
