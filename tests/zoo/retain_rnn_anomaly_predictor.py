# Source: https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection
# Shape: train() carries the LSTM hidden state from one BPTT chunk to the next without repackage_hidden(), and loss.backward(retain_graph=True) is what silences "Trying to backward through the graph a second time", so each step's graph links to all previous chunks and the chain (with buffers) grows every step.
# Verdict: leak
"""RNN predictor for time-series anomaly detection (1_train_predictor.py
style): an LSTM encoder with dot-product attention over its own outputs and a
linear decoder predicting the next value; trained with truncated BPTT over one
long series, validated with teacher forcing under no_grad."""
from types import SimpleNamespace

import torch
import torch.nn as nn

args = SimpleNamespace(emsize=8, nhid=16, nlayers=2, dropout=0.1, bptt=8, batch_size=4,
                       lr=0.05, clip=0.25, log_interval=5)


class RNNPredictor(nn.Module):
    def __init__(self, enc_inp_size=1, rnn_inp_size=8, rnn_hid_size=16, dec_out_size=1,
                 nlayers=2, dropout=0.1):
        super().__init__()
        self.encoder = nn.Linear(enc_inp_size, rnn_inp_size)
        self.rnn = nn.LSTM(rnn_inp_size, rnn_hid_size, nlayers, dropout=dropout)
        self.attn_q = nn.Linear(rnn_hid_size, rnn_hid_size)
        self.decoder = nn.Linear(2 * rnn_hid_size, dec_out_size)
        self.drop = nn.Dropout(dropout)
        self.nlayers, self.rnn_hid_size = nlayers, rnn_hid_size

    def attend(self, output):
        # output: (T, B, H) -> causal dot-product attention over earlier steps
        q = self.attn_q(output).transpose(0, 1)
        k = output.transpose(0, 1)
        scores = q @ k.transpose(1, 2) / self.rnn_hid_size ** 0.5
        T = output.size(0)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        ctx = scores.masked_fill(mask, float("-inf")).softmax(-1) @ k
        return ctx.transpose(0, 1)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        ctx = self.attend(output)
        decoded = self.decoder(torch.cat([output, ctx], dim=-1))
        return decoded, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size),
                weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size))

    def repackage_hidden(self, h):
        """Wraps hidden states in new Tensors, to detach them from their history."""
        if isinstance(h, tuple):
            return tuple(self.repackage_hidden(v) for v in h)
        return h.detach()


def batchify(series, bsz):
    nbatch = series.size(0) // bsz
    return series[:nbatch * bsz].view(bsz, nbatch).t().contiguous().unsqueeze(-1)


def get_batch(source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


def make_batches(n, seed=0):
    """A long noisy ECG-like series cut into `n` BPTT chunks per column."""
    g = torch.Generator().manual_seed(seed)
    length = args.batch_size * (n * args.bptt + 1)
    t = torch.arange(length, dtype=torch.float32)
    series = torch.sin(t / 3) + 0.3 * torch.sin(t / 11) + 0.05 * torch.randn(length, generator=g)
    return batchify(series, args.batch_size)


def sgd_update(model, lr):
    """Plain SGD step on .data, as in the char-RNN tutorials."""
    for p in model.parameters():
        if p.grad is not None:
            p.data.add_(p.grad.data, alpha=-lr)


def train(model, train_dataset, criterion, epoch):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(args.batch_size)
    losses = []
    for batch, i in enumerate(range(0, train_dataset.size(0) - 1, args.bptt)):
        inputSeq, targetSeq = get_batch(train_dataset, i)
        if inputSeq.size(0) < 2:
            break
        model.zero_grad()
        outSeq, hidden = model.forward(inputSeq, hidden)
        loss = criterion(outSeq.view(-1), targetSeq.contiguous().view(-1))
        loss.backward(retain_graph=True)  # TLK202
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        sgd_update(model, args.lr)
        total_loss += loss.item()
        losses.append(loss.item())
        if batch % args.log_interval == 0 and batch > 0:
            print(f"| epoch {epoch:3d} | {batch:5d} batches | loss {total_loss / args.log_interval:5.4f}")
            total_loss = 0.0
    return hidden, losses


def evaluate(model, test_dataset, criterion):
    model.eval()
    total_loss, nbatch = 0.0, 0
    with torch.no_grad():
        hidden = model.init_hidden(args.batch_size)
        for i in range(0, test_dataset.size(0) - 1, args.bptt):
            inputSeq, targetSeq = get_batch(test_dataset, i)
            outSeq, hidden = model.forward(inputSeq, hidden)
            total_loss += criterion(outSeq.view(-1), targetSeq.contiguous().view(-1)).item()
            nbatch += 1
    return total_loss / max(nbatch, 1)


def run(steps):
    torch.manual_seed(0)
    model = RNNPredictor(rnn_inp_size=args.emsize, rnn_hid_size=args.nhid,
                         nlayers=args.nlayers, dropout=args.dropout)
    criterion = nn.MSELoss()
    hidden, losses = train(model, make_batches(steps, seed=1), criterion, epoch=1)
    val_loss = evaluate(model, make_batches(3, seed=2), criterion)
    print(f"| end of epoch | valid loss {val_loss:5.4f}")
    return {"model": model, "hidden": hidden, "losses": losses}


if __name__ == "__main__":
    run(10)
