"""A training script with one of each leak torchleak finds. Each marked line is reported.

Run: torchleak examples/   or   flake8 --select TLK examples/
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
gru = nn.GRU(16, 32, batch_first=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
gru_optimizer = torch.optim.SGD(gru.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
train_loader = [(torch.randn(8, 32), torch.randint(0, 10, (8,))) for _ in range(4)]
sequence_loader = [(torch.randn(8, 5, 16), torch.randn(8, 5, 32)) for _ in range(4)]


def train_one_epoch():
    total_loss = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward(retain_graph=True)  # TLK201
        optimizer.step()
        total_loss += loss  # TLK101
    return total_loss / len(train_loader)


def validate():
    model.eval()
    predictions = []
    for x, _ in train_loader:
        predictions.append(model(x))  # TLK102
    return torch.cat(predictions)


def train_recurrent():
    # Gradients accumulate over the stream; a gru_optimizer.step() inside the loop would make the
    # second backward raise (the step modifies weights the retained graph saved) instead of grow.
    hidden = torch.zeros(1, 8, 32)
    for x, y in sequence_loader:
        out, hidden = gru(x, hidden)
        loss = F.mse_loss(out, y)
        loss.backward(retain_graph=True)  # TLK202
    gru_optimizer.step()


def evaluate_recurrent():
    hidden = None
    for x, _ in sequence_loader:
        out, hidden = gru(x, hidden)  # TLK103


def train_with_gradient_penalty():
    penalties = []
    for x, y in train_loader:
        x.requires_grad_(True)
        loss = criterion(model(x), y)
        grads = torch.autograd.grad(loss, x, create_graph=True)[0]
        penalty = grads.pow(2).sum()
        (loss + penalty).backward()
        optimizer.step()
        penalties.append(penalty)  # TLK301


def train_with_grad_norm_penalty():
    for x, y in train_loader:
        loss = criterion(model(x), y)
        loss.backward(create_graph=True)  # TLK302
        penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
        penalty.backward()
        optimizer.step()
