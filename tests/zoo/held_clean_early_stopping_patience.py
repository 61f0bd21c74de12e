# Source: https://learn-pytorch.oneoffcoder.com/early-stopping.html
# Shape: early stopping keeps best_val_loss, a val-loss history and a deep copy of the best state_dict, but evaluate_loss runs under torch.no_grad() and sums loss.item(), so every kept value is a float or a plain (graph-free) tensor.
# Verdict: clean
import copy

import torch
from torch import nn


device = torch.device('cpu')


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def make_data(seed, n_samples):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n_samples, 8, generator=g)
    logits = 1.2 * x[:, 0] - 0.8 * x[:, 1] + 0.5 * x[:, 2] ** 2 - 0.3 * x[:, 3] * x[:, 4]
    logits = logits + 0.8 * torch.randn(n_samples, generator=g)
    y = (logits > 0).float().unsqueeze(1)
    return x, y


def loader(x, y, batch_size):
    for i in range(0, len(x), batch_size):
        yield x[i:i + batch_size], y[i:i + batch_size]


def evaluate_loss(model, criterion, batches):
    model.eval()
    total = 0.0
    count = 0
    with torch.no_grad():
        for xb, yb in batches:
            xb, yb = xb.to(device), yb.to(device)
            loss = criterion(model(xb), yb)
            total += loss.item() * len(xb)
            count += len(xb)
    return total / count


def train_one_epoch(model, criterion, optimizer, batches):
    model.train()
    for xb, yb in batches:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    return loss


def run(batches):
    model = nn.Sequential(
        nn.Linear(8, 32),
        nn.ReLU(),
        nn.Linear(32, 32),
        nn.ReLU(),
        nn.Linear(32, 1),
    ).to(device)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    val_x, val_y = make_data(7, 200)
    patience = 1000
    best_val_loss = float('inf')
    best_state = copy.deepcopy(model.state_dict())
    epochs_without_improvement = 0
    history = []

    for epoch, seed in enumerate(batches):
        train_x, train_y = make_data(seed, 64)
        last_loss = train_one_epoch(model, criterion, optimizer, loader(train_x, train_y, 32))
        val_loss = evaluate_loss(model, criterion, loader(val_x, val_y, 100))
        history.append({'epoch': epoch + 1, 'val_loss': val_loss})

        if val_loss < best_val_loss:
            best_val_loss = val_loss
            best_state = copy.deepcopy(model.state_dict())
            epochs_without_improvement = 0
        else:
            epochs_without_improvement += 1

        if epochs_without_improvement >= patience:
            break

    model.load_state_dict(best_state)
    return history, best_val_loss
