# Source: https://github.com/yhs968/pyGRU4REC/issues/8
# Shape: the session-parallel GRU hidden state is carried across mini-batches without detach and backward uses retain_graph=True to silence the second-backward error, so the hidden chain (and its saved tensors) spans all batches.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class GRU4REC(nn.Module):
    def __init__(self, n_items=30, hidden=16, layers=1):
        super().__init__()
        self.n_items, self.hidden, self.layers = n_items, hidden, layers
        self.emb = nn.Embedding(n_items, hidden)
        self.gru = nn.GRU(hidden, hidden, layers)
        self.out = nn.Linear(hidden, n_items)

    def init_hidden(self, batch_size):
        return torch.zeros(self.layers, batch_size, self.hidden)

    def forward(self, items, hidden):
        x = self.emb(items).unsqueeze(0)
        y, hidden = self.gru(x, hidden)
        return self.out(y.squeeze(0)), hidden


def reset_hidden(hidden, mask):
    """Zero the hidden rows whose session just ended (mask == 1)."""
    keep = (1.0 - mask).view(1, -1, 1)
    return hidden * keep


def top1_loss(logits):
    # sampled-negative TOP1 ranking loss over the in-batch targets
    diag = logits.diag().view(-1, 1)
    return (torch.sigmoid(logits - diag).mean() + torch.sigmoid(logits ** 2).mean())


class SessionTrainer:
    def __init__(self, model, batch_size, lr=0.05, clip=0.25):
        self.model = model
        self.lr, self.clip = lr, clip
        self.hidden = model.init_hidden(batch_size)
        self.losses = []

    def train_epoch(self, loader):
        for items, targets, mask in loader:
            self.hidden = reset_hidden(self.hidden, mask)
            logits, self.hidden = self.model(items, self.hidden)
            sampled = logits[:, targets]
            loss = top1_loss(sampled)
            self.model.zero_grad()
            loss.backward(retain_graph=True)  # TLK202
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            for p in self.model.parameters():
                p.data.add_(p.grad, alpha=-self.lr)
            self.losses.append(loss.item())
        return sum(self.losses) / max(len(self.losses), 1)


def make_batches(n, bs=5, n_items=30):
    return [(torch.randint(0, n_items, (bs,)), torch.randint(0, n_items, (bs,)), (torch.rand(bs) < 0.2).float())
            for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    SessionTrainer(GRU4REC(), batch_size=5).train_epoch(batches)
