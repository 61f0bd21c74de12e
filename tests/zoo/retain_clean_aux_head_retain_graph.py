# Source: https://github.com/hughplay/memo/blob/master/code/snippet/pytorch.py
# Shape: a shared encoder output y feeds two heads trained by two optimizers; out_1.backward(retain_graph=True) is needed because out_2.backward() goes through the same encoder graph right after, and the second backward frees it, so nothing outlives the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab=100, emb=16, hidden=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)

    def forward(self, tokens):
        out, h = self.rnn(self.embedding(tokens))
        return torch.cat([out.mean(1), h[-1]], dim=1)


class SentimentHead(nn.Module):      # f
    def __init__(self, d=64, n=3):
        super().__init__()
        self.fc = nn.Linear(d, n)

    def forward(self, y, labels):
        return F.cross_entropy(self.fc(y), labels)


class LengthHead(nn.Module):         # g: auxiliary regression on sequence length
    def __init__(self, d=64):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, y, lengths):
        return F.smooth_l1_loss(self.fc(y).squeeze(1), lengths)


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, bs=16, seq=20):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(5, seq + 1, (bs,), generator=g)
    tokens = torch.randint(1, 100, (bs, seq), generator=g) * (torch.arange(seq) < lengths.unsqueeze(1))
    labels = torch.randint(0, 3, (bs,), generator=g)
    return tokens, labels, lengths.float() / seq


class MultiTaskTrainer:
    def __init__(self):
        self.model = Encoder()
        self.f = SentimentHead()
        self.g = LengthHead()
        # opt_1 only owns the sentiment head; opt_2 owns the encoder and the auxiliary head
        self.opt_1 = torch.optim.Adam(self.f.parameters(), lr=1e-3)
        self.opt_2 = torch.optim.Adam(list(self.model.parameters()) + list(self.g.parameters()), lr=1e-3)
        self.log = []

    def train_step(self, batch):
        tokens, labels, lengths = batch
        y = self.model(tokens)
        self.model.zero_grad()
        self.opt_1.zero_grad()
        out_1 = self.f(y, labels)
        out_1.backward(retain_graph=True)
        self.opt_1.step()
        self.model.zero_grad()
        self.opt_2.zero_grad()
        out_2 = self.g(y, lengths)
        out_2.backward()
        self.opt_2.step()
        self.log.append((out_1.item(), out_2.item()))

    def fit(self, seeds):
        for seed in seeds:
            self.train_step(load_batch(seed))
        return self.log


def run(batches):
    return MultiTaskTrainer().fit(batches)
