# Source: https://learn.biosrag.com/ai/rnn-training-4.html
# Shape: The LSTM language model's hidden state is created once before the epoch and carried from batch to batch without being detached; the "cannot backpropagate more than once" error is silenced with retain_graph=True, so the graph of every previous batch stays alive and each backward walks the whole history (each batch slower than the last).
# Verdict: leak
import math
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = (
    "that which we call a rose by any other name would smell as sweet "
    "so romeo would, were he not romeo call'd, retain that dear perfection "
    "which he owes without that title. romeo, doff thy name, "
    "and for that name which is no part of thee take all myself. "
)


class Vocab:
    def __init__(self, text):
        self.chars = sorted(set(text) | set(string.ascii_lowercase))
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    def encode(self, text):
        return torch.tensor([self.stoi[c] for c in text], dtype=torch.long)

    def __len__(self):
        return len(self.chars)


def make_batches(batch_size=4, text=CORPUS * 4):
    """Batchify like the PyTorch word_language_model example: (n_steps, batch_size)."""
    vocab = Vocab(text)
    data = vocab.encode(text)
    n = data.size(0) // batch_size
    return vocab, data[: n * batch_size].view(batch_size, n).t().contiguous()


def bptt_batches(source, bptt):
    """Endless generator of (input, target) chunks along the time dimension."""
    while True:
        for i in range(0, source.size(0) - 1 - bptt, bptt):
            yield source[i:i + bptt], source[i + 1:i + 1 + bptt]


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed=16, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.cell = nn.LSTMCell(embed, hidden)
        self.decoder = nn.Linear(hidden, vocab_size)
        self.hidden_size = hidden

    def init_hidden(self, batch_size):
        z = torch.zeros(batch_size, self.hidden_size)
        return (z, z.clone())

    def forward(self, inputs, hidden):
        outputs = []
        for x_t in inputs:
            hidden = self.cell(self.embed(x_t), hidden)
            outputs.append(self.decoder(hidden[0]))
        return torch.stack(outputs), hidden


class Trainer:
    def __init__(self, model, lr=1.0, clip=0.25, bptt=12):
        self.model = model
        self.lr = lr
        self.clip = clip
        self.bptt = bptt
        self.hidden = None
        self.train_log = []

    def train_batch(self, inputs, targets):
        self.model.train()
        self.model.zero_grad()
        output, self.hidden = self.model(inputs, self.hidden)
        loss = F.cross_entropy(output.view(-1, output.size(-1)), targets.reshape(-1))
        loss.backward(retain_graph=True)  # TLK202
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        for p in self.model.parameters():
            p.data.add_(p.grad, alpha=-self.lr)
        return loss.item()

    def fit(self, source, steps, batch_size):
        self.hidden = self.model.init_hidden(batch_size)
        batches = bptt_batches(source, self.bptt)
        for step in range(steps):
            inputs, targets = next(batches)
            self.train_log.append(self.train_batch(inputs, targets))
        return self.train_log

    @torch.no_grad()
    def evaluate(self, source, batch_size):
        self.model.eval()
        hidden = self.model.init_hidden(batch_size)
        total, count = 0.0, 0
        for i in range(0, source.size(0) - 1 - self.bptt, self.bptt):
            inputs, targets = source[i:i + self.bptt], source[i + 1:i + 1 + self.bptt]
            output, hidden = self.model(inputs, hidden)
            total += F.cross_entropy(output.view(-1, output.size(-1)), targets.reshape(-1), reduction="sum").item()
            count += targets.numel()
        return math.exp(total / count)


def run(steps):
    torch.manual_seed(0)
    batch_size = 4
    vocab, train_data = make_batches(batch_size)
    model = CharLSTM(len(vocab))
    trainer = Trainer(model)
    trainer.fit(train_data, steps, batch_size)
    ppl = trainer.evaluate(train_data[:60], batch_size)
    return {"trainer": trainer, "val_ppl": ppl}


if __name__ == "__main__":
    run(10)
