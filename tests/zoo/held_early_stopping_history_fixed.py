# Source: https://github.com/Bjarten/early-stopping-pytorch
# Shape: History stores plain floats, so the only validation graph alive is the single best one EarlyStopping keeps (bounded); nothing accumulates across steps.
# Verdict: clean
import copy
import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_batches(n, batch_size=32, in_dim=20):
    g = torch.Generator().manual_seed(0)
    w = torch.randn(in_dim, 1, generator=g)
    out = []
    for _ in range(n):
        x = torch.randn(batch_size, in_dim, generator=g)
        out.append((x, x @ w + 0.1 * torch.randn(batch_size, 1, generator=g)))
    return out


class Regressor(nn.Module):
    def __init__(self, in_dim=20, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = self.dropout(F.relu(self.fc1(x)))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.out(x)


class EarlyStopping:
    """Early stops the training if validation loss doesn't improve after a given patience."""

    def __init__(self, patience=7, delta=0.0):
        self.patience = patience
        self.delta = delta
        self.counter = 0
        self.best_val_loss = None
        self.early_stop = False
        self.best_state = None

    def __call__(self, val_loss, model):
        if self.best_val_loss is None or val_loss < self.best_val_loss - self.delta:
            self.best_val_loss = val_loss
            self.best_state = copy.deepcopy(model.state_dict())
            self.counter = 0
        else:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True


class History:
    def __init__(self):
        self.records = defaultdict(list)

    def log(self, **metrics):
        for key, value in metrics.items():
            self.records[key].append(value.item() if torch.is_tensor(value) else value)

    def last(self, key):
        return self.records[key][-1]


def validate(model, val_batches):
    model.eval()
    losses = [F.mse_loss(model(x), y) for x, y in val_batches]
    return sum(losses) / len(losses)


def fit(model, train_batches, val_batches, patience=1000, val_interval=1, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    early_stopping = EarlyStopping(patience=patience)
    history = History()
    for step, (x, y) in enumerate(train_batches, start=1):
        model.train()
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % val_interval:
            continue
        val_loss = validate(model, val_batches)
        history.log(step=step, train_loss=loss.item(), val_loss=val_loss)
        early_stopping(val_loss, model)
        if early_stopping.early_stop:
            break
    if early_stopping.best_state is not None:
        model.load_state_dict(early_stopping.best_state)
    return model, history, early_stopping


def run(steps):
    model = Regressor()
    return fit(model, make_batches(steps), make_batches(2))


if __name__ == "__main__":
    _, h, es = run(30)
    print(len(h.records["val_loss"]), float(es.best_val_loss))
