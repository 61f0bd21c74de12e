# Source: https://github.com/pytorch/pytorch/issues/2198
# Shape: the word-language-model recipe the thread points to: training repackages (detaches) the hidden state at the start of every BPTT chunk, and evaluation carries it under torch.no_grad(), so no chunk's graph outlives its own backward.
# Verdict: clean
import math

import torch
import torch.nn as nn


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train_epoch(rnn_lm, train_data, ntokens, lr, bptt=35, clip=0.25, log_interval=200):
    rnn_lm.train()
    criterion = nn.CrossEntropyLoss()
    total_loss = 0.0
    hidden = rnn_lm.init_hidden(train_data.size(1))
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        hidden = repackage_hidden(hidden)
        rnn_lm.zero_grad()
        output, hidden = rnn_lm(data, hidden)
        nll = criterion(output.view(-1, ntokens), targets)
        nll.backward()
        torch.nn.utils.clip_grad_norm_(rnn_lm.parameters(), clip)
        for p in rnn_lm.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += nll.item()
        if batch % log_interval == 0 and batch > 0:
            print(f"| batch {batch} | loss {total_loss / log_interval:.2f} | ppl {math.exp(total_loss / log_interval):.2f}")
            total_loss = 0.0


def evaluate(rnn_lm, data_source, ntokens, bptt=35):
    rnn_lm.eval()
    criterion = nn.CrossEntropyLoss()
    total = 0.0
    hidden = rnn_lm.init_hidden(data_source.size(1))
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = rnn_lm(data, hidden)
            total += len(data) * criterion(output.view(-1, ntokens), targets).item()
    return total / (len(data_source) - 1)
