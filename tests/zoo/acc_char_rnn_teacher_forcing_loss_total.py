# Source: https://github.com/spro/practical-pytorch/pull/29
# Shape: a char-RNN trained with teacher forcing sums the per-character loss inside a step (needed for BPTT) but also adds each step's loss tensor to a print-every total.
# Verdict: leak
import torch
import torch.nn as nn

VOCAB = 12


class CharRNN(nn.Module):
    def __init__(self, vocab=VOCAB, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.cell = nn.GRUCell(hid, hid)
        self.out = nn.Linear(hid, vocab)
        self.hid = hid

    def init_hidden(self, b):
        return torch.zeros(b, self.hid)

    def forward(self, ch, h):
        h = self.cell(self.emb(ch), h)
        return self.out(h), h


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, VOCAB, (4, 10), generator=g) for _ in range(n)]


def train_step(model, opt, crit, seq):
    h = model.init_hidden(seq.size(0))
    opt.zero_grad()
    loss = 0
    for t in range(seq.size(1) - 1):
        logits, h = model(seq[:, t], h)
        loss = loss + crit(logits, seq[:, t + 1])
    loss.backward()
    opt.step()
    return loss / (seq.size(1) - 1)


def run(batches):
    model = CharRNN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    crit = nn.CrossEntropyLoss()
    print_every = 8
    loss_total = 0
    step = 0
    for seq in batches:
        loss = train_step(model, opt, crit, seq)
        loss_total += loss  # TLK101
        step += 1
        if step % print_every == 0:
            print("step %d avg loss %.4f" % (step, float(loss_total) / step))


if __name__ == "__main__":
    run(make_batches())
