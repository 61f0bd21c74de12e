"""The same script with every leak fixed: torchleak reports nothing here."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
gru = nn.GRU(16, 32, batch_first=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
train_loader = [(torch.randn(8, 32), torch.randint(0, 10, (8,))) for _ in range(4)]
sequence_loader = [(torch.randn(8, 5, 16), torch.randn(8, 5, 32)) for _ in range(4)]


def train_one_epoch():
    total_loss = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(train_loader)


@torch.no_grad()
def validate():
    model.eval()
    predictions = []
    for x, _ in train_loader:
        predictions.append(model(x))
    return torch.cat(predictions)


def train_recurrent():
    hidden = torch.zeros(1, 8, 32)
    for x, y in sequence_loader:
        hidden = hidden.detach()
        out, hidden = gru(x, hidden)
        loss = F.mse_loss(out, y)
        loss.backward()
        optimizer.step()


def evaluate_recurrent():
    hidden = None
    with torch.no_grad():
        for x, _ in sequence_loader:
            out, hidden = gru(x, hidden)


def train_with_gradient_penalty():
    penalties = []
    for x, y in train_loader:
        x.requires_grad_(True)
        loss = criterion(model(x), y)
        grads = torch.autograd.grad(loss, x, create_graph=True)[0]
        penalty = grads.pow(2).sum()
        (loss + penalty).backward()
        optimizer.step()
        penalties.append(penalty.item())


def train_with_grad_norm_penalty():
    for x, y in train_loader:
        loss = criterion(model(x), y)
        grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
        penalty = sum(g.pow(2).sum() for g in grads)
        (loss + penalty).backward()
        optimizer.step()
        optimizer.zero_grad()


def accumulate_micro_batches():
    optimizer.zero_grad()
    total = 0.0
    for x, y in train_loader:
        total = total + criterion(model(x), y) / len(train_loader)
    total.backward()
    optimizer.step()
