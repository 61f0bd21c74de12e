# Source: https://github.com/yikangshen/Ordered-Neurons/issues/13
# Shape: look-alike (the variant asked about in the issue): a fresh zero hidden state per batch instead of carrying it, and the running loss uses .item(); hidden and the loss total hold no history.
# Verdict: clean
import math

import numpy as np
import torch
import torch.nn as nn


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp=32, nhid=48, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnns = nn.ModuleList([nn.LSTM(ninp if l == 0 else nhid, nhid if l != nlayers - 1 else ninp)
                                   for l in range(nlayers)])
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight
        self.nhid, self.ninp, self.nlayers = nhid, ninp, nlayers

    def forward(self, input, hidden, return_h=False):
        raw_output = self.drop(self.encoder(input))
        new_hidden, raw_outputs, outputs = [], [], []
        for l, rnn in enumerate(self.rnns):
            raw_output, new_h = rnn(raw_output, hidden[l])
            new_hidden.append(new_h)
            raw_outputs.append(raw_output)
            if l != self.nlayers - 1:
                raw_output = self.drop(raw_output)
                outputs.append(raw_output)
        output = self.drop(raw_output)
        outputs.append(output)
        result = output.view(output.size(0) * output.size(1), output.size(2))
        if return_h:
            return result, new_hidden, raw_outputs, outputs
        return result, new_hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return [(weight.new_zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp),
                 weight.new_zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp))
                for l in range(self.nlayers)]


def get_batch(source, i, seq_len):
    seq_len = min(seq_len, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train(model, criterion, optimizer, train_data, batch_size, bptt=10, alpha=2, beta=1, clip=0.25, max_batches=None):
    total_loss = 0
    hidden = model.init_hidden(batch_size)
    batch, i, losses = 0, 0, []
    while i < train_data.size(0) - 1 - 1 and (max_batches is None or batch < max_batches):
        seq_len = max(5, int(np.random.normal(bptt if np.random.random() < 0.95 else bptt / 2., 2)))
        lr2 = optimizer.param_groups[0]['lr']
        optimizer.param_groups[0]['lr'] = lr2 * seq_len / bptt
        model.train()
        data, targets = get_batch(train_data, i, seq_len)

        # Starting each batch, we start from a fresh zero state instead of the previous one.
        hidden = model.init_hidden(batch_size)
        optimizer.zero_grad()

        output, hidden, rnn_hs, dropped_rnn_hs = model(data, hidden, return_h=True)
        raw_loss = criterion(model.decoder(output), targets)
        loss = raw_loss
        # Activation Regularization
        loss = loss + sum(alpha * dropped_rnn_h.pow(2).mean() for dropped_rnn_h in dropped_rnn_hs[-1:])
        # Temporal Activation Regularization (slowness)
        loss = loss + sum(beta * (rnn_h[1:] - rnn_h[:-1]).pow(2).mean() for rnn_h in rnn_hs[-1:])
        loss.backward()

        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()

        total_loss += raw_loss.item()
        optimizer.param_groups[0]['lr'] = lr2
        if batch % 5 == 0 and batch > 0:
            cur_loss = total_loss / 5
            losses.append(math.exp(cur_loss))
            total_loss = 0
        batch += 1
        i += seq_len
    return hidden, losses


def make_batches(n, ntokens=60, batch_size=4, bptt=10):
    g = torch.Generator().manual_seed(0)
    stream = torch.randint(0, ntokens, ((n + 2) * (bptt + 15) * batch_size,), generator=g)
    nbatch = stream.size(0) // batch_size
    return stream[:nbatch * batch_size].view(batch_size, -1).t().contiguous()


def run(steps, ntokens=60, batch_size=4):
    torch.manual_seed(0)
    np.random.seed(0)
    model = RNNModel(ntokens)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.0, 0.999), eps=1e-9)
    hidden, losses = train(model, criterion, optimizer, make_batches(steps, ntokens, batch_size), batch_size,
                           max_batches=steps)
    return model, hidden, losses
