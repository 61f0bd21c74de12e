# Source: https://discuss.pytorch.org/t/how-does-batchnorm-keeps-track-of-running-mean/40084
# Shape: the running statistics are updated from mean.detach()/var.detach(), so the buffers carried across steps are plain tensors, while the normalisation itself still uses the attached batch statistics.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MyBatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def _update_running_stats(self, mean, var):
        m = self.momentum
        self.running_mean = (1 - m) * self.running_mean + m * mean
        self.running_var = (1 - m) * self.running_var + m * var
        self.num_batches_tracked += 1

    def forward(self, x):
        if self.training:
            mean = x.mean(dim=0)
            var = x.var(dim=0, unbiased=False)
            n = x.size(0)
            self._update_running_stats(mean.detach(), var.detach() * n / (n - 1))
        else:
            mean = self.running_mean
            var = self.running_var
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias


class MLP(nn.Module):
    def __init__(self, in_dim=8, hidden=32, num_classes=3):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.bn1 = MyBatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.bn2 = MyBatchNorm1d(hidden)
        self.out = nn.Linear(hidden, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.bn2(self.fc2(x)))
        return self.out(x)


def train_epoch(model, batches, optimizer, probe=None):
    model.train()
    losses = []
    for i, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if probe is not None:
            probe(i)
    return losses


@torch.no_grad()
def evaluate(model, batches):
    model.eval()
    correct = total = 0
    for x, y in batches:
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total


def _batches(g, n):
    w = torch.randn(8, 3, generator=torch.Generator().manual_seed(21))
    out = []
    for _ in range(n):
        x = torch.randn(32, 8, generator=g) * 3.0 + 1.0
        out.append((x, (x @ w).argmax(1)))
    return out


def make_batches(n):
    return _batches(torch.Generator().manual_seed(2), n)


def run(batches, probe=None):
    torch.manual_seed(0)
    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = train_epoch(model, batches, optimizer, probe=probe)
    acc = evaluate(model, _batches(torch.Generator().manual_seed(3), 2))
    return {"first_loss": losses[0], "last_loss": losses[-1], "eval_acc": acc}


if __name__ == "__main__":
    print(run(make_batches(5)))
