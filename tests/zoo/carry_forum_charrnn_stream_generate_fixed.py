# Source: https://discuss.pytorch.org/t/optimizing-cuda-memory-pipeline-for-rnn/3311
# Shape: Fixed as the answer suggests (volatile input/hidden, today torch.no_grad()): the stream is generated without autograd, so the carried hidden state is a plain tensor and the stream can run forever in constant memory; the training hidden is still carried across chunks and repackaged.
# Verdict: clean
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

ALPHABET = string.ascii_lowercase + " .,\n"
N_CHARS = len(ALPHABET)
HIDDEN = 96
SEQ_LEN = 24
BATCH = 8
GEN_PER_STEP = 12


def make_batches(n_batches, seed=0):
    """Chunks of a synthetic 'text' (a noisy repeating phrase), as (input, target) ids."""
    torch.manual_seed(seed)
    phrase = "the quick brown fox jumps over the lazy dog. "
    ids = torch.tensor([ALPHABET.index(c) for c in phrase * 40])
    out = []
    for _ in range(n_batches):
        starts = torch.randint(0, ids.numel() - SEQ_LEN - 1, (BATCH,))
        chunk = torch.stack([ids[s:s + SEQ_LEN + 1] for s in starts.tolist()], dim=1)
        noise = torch.rand(chunk.shape) < 0.02
        chunk = torch.where(noise, torch.randint(0, N_CHARS, chunk.shape), chunk)
        out.append((chunk[:-1], chunk[1:]))
    return out


class CharRNN(nn.Module):
    def __init__(self, n_chars, hidden):
        super(CharRNN, self).__init__()
        self.hidden_size = hidden
        self.encoder = nn.Embedding(n_chars, hidden)
        self.gru = nn.GRU(hidden, hidden)
        self.decoder = nn.Linear(hidden, n_chars)

    def forward(self, inp, hidden):
        out, hidden = self.gru(self.encoder(inp), hidden)
        return self.decoder(out), hidden

    def init_hidden(self, batch):
        return torch.zeros(1, batch, self.hidden_size)


def repackage_hidden(h):
    return h.detach()


class Streamer(object):
    """Keeps generating text from where it stopped last time."""

    def __init__(self, model, temperature=0.8):
        self.model = model
        self.temperature = temperature
        self.hidden = model.init_hidden(1)
        self.last_char = torch.tensor([[ALPHABET.index("t")]])
        self.text = []

    def generate(self, n):
        for _ in range(n):
            with torch.no_grad():
                logits, self.hidden = self.model(self.last_char, self.hidden)
            probs = F.softmax(logits.view(-1) / self.temperature, dim=0)
            idx = torch.multinomial(probs, 1)
            self.last_char = idx.view(1, 1)
            self.text.append(ALPHABET[idx.item()])
        return "".join(self.text[-n:])


def train_chunk(model, optimizer, hidden, inp, target):
    hidden = repackage_hidden(hidden)
    model.zero_grad()
    out, hidden = model(inp, hidden)
    loss = F.cross_entropy(out.view(-1, N_CHARS), target.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item(), hidden


def run(steps):
    torch.manual_seed(0)
    model = CharRNN(N_CHARS, HIDDEN)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    streamer = Streamer(model)
    hidden = model.init_hidden(BATCH)
    losses = []
    for i, (inp, target) in enumerate(make_batches(steps)):
        loss, hidden = train_chunk(model, optimizer, hidden, inp, target)
        losses.append(loss)
        model.eval()
        sample = streamer.generate(GEN_PER_STEP)
        model.train()
        if i % 10 == 0:
            print("%d %.3f %r" % (i, loss, sample))
    return {"model": model, "streamer": streamer, "losses": losses, "hidden": hidden}


if __name__ == "__main__":
    run(10)
