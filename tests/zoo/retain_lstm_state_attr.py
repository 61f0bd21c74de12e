# Source: https://e-com-net.com/article/1600156146990088192.htm
# Shape: forward() writes the LSTM's returned (h, c) back into self.h0/self.c0 without detaching, so each batch's graph hangs off the previous one; retain_graph=True (added to silence "Trying to backward through the graph a second time") keeps that ever-growing chain and its saved activations alive.
# Verdict: leak
import math

import torch
import torch.nn as nn

BATCH = 32
SEQ_LEN = 24
N_FEAT = 16
HIDDEN = 64


class WindowRegressor(nn.Module):
    """Stateful sequence regressor: the LSTM state is kept on the module."""

    def __init__(self, n_features=N_FEAT, hidden=HIDDEN, batch=BATCH):
        super().__init__()
        self.flat = nn.Flatten(start_dim=2)
        self.lstm = nn.LSTM(n_features, hidden, batch_first=True)
        self.model1 = nn.Sequential(nn.Linear(hidden, 32), nn.ReLU(), nn.Linear(32, 1))
        self.h0 = torch.zeros(1, batch, hidden)
        self.c0 = torch.zeros(1, batch, hidden)

    def forward(self, inp):
        to_in = self.flat(inp)
        f, state = self.lstm(to_in, (self.h0, self.c0))
        (self.h0, self.c0) = state
        return self.model1(f)


def make_batches(n):
    """Consecutive windows of one long multichannel signal (4x4 sensor grid)."""
    g = torch.Generator().manual_seed(1)
    t = torch.arange(n * SEQ_LEN, dtype=torch.float32)
    base = torch.stack([torch.sin(t / (5 + k)) for k in range(N_FEAT)], dim=-1)
    signal = base.unsqueeze(0).repeat(BATCH, 1, 1) + 0.05 * torch.randn(BATCH, n * SEQ_LEN, N_FEAT, generator=g)
    target = signal.mean(-1, keepdim=True).roll(-1, dims=1)
    batches = []
    for i in range(n):
        sl = slice(i * SEQ_LEN, (i + 1) * SEQ_LEN)
        batches.append((signal[:, sl].reshape(BATCH, SEQ_LEN, 4, 4), target[:, sl]))
    return batches


def sgd_step(model, lr):
    # plain SGD as in the old word_language_model example
    for p in model.parameters():
        if p.grad is not None:
            p.data.add_(p.grad.data, alpha=-lr)


def train_epoch(model, batches, lr=0.05):
    criterion = nn.MSELoss()
    history = []
    for x, y in batches:
        pred = model(x)
        loss = criterion(pred, y)
        model.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        sgd_step(model, lr)
        history.append(loss.item())
    return history


def run(steps):
    torch.manual_seed(0)
    model = WindowRegressor()
    history = train_epoch(model, make_batches(steps))
    assert all(math.isfinite(h) for h in history)
    return model, history


if __name__ == "__main__":
    _, hist = run(10)
    print(hist[-1])
