# Source: https://github.com/salesforce/awd-lstm-lm/blob/master/main.py
# Shape: truncated BPTT language-model training that carries the LSTM hidden state across batches but repackages it (a recursive .detach() helper) at the top of every batch, returns (output, hidden, raw hiddens, dropped hiddens) from the model for AR/TAR regularisers, and accumulates raw_loss.data; the evaluation loop runs without no_grad but repackages the hidden state after each chunk and only accumulates .data, so nothing chains across iterations.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 50


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken=100, ninp=32, nhid=64, dropout=0.2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.proj = nn.Linear(nhid, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight
        self.drop = nn.Dropout(dropout)
        self.nhid = nhid

    def init_hidden(self, bsz):
        return (torch.zeros(1, bsz, self.nhid), torch.zeros(1, bsz, self.nhid))

    def forward(self, data, hidden, return_h=False):
        emb = self.drop(self.encoder(data))
        raw_output, hidden = self.rnn(emb, hidden)
        dropped = self.drop(raw_output)
        output = self.proj(dropped)
        if return_h:
            return output, hidden, [raw_output], [dropped]
        return output, hidden


def get_batch(source, i, seq_len):
    seq_len = min(seq_len, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train(model, optimizer, train_data, bptt=20, alpha=2.0, beta=1.0):
    model.train()
    hidden = model.init_hidden(train_data.size(1))
    total_loss = 0
    i = 0
    while i < train_data.size(0) - 2:
        data, targets = get_batch(train_data, i, bptt)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden, rnn_hs, dropped_rnn_hs = model(data, hidden, return_h=True)
        raw_loss = F.cross_entropy(model.decoder(output).view(-1, 100), targets)
        loss = raw_loss
        loss = loss + sum(alpha * h.pow(2).mean() for h in dropped_rnn_hs[-1:])
        loss = loss + sum(beta * (h[1:] - h[:-1]).pow(2).mean() for h in rnn_hs[-1:])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        total_loss += raw_loss.data
        i += bptt
    return total_loss


def evaluate(model, data_source, bptt=20):
    model.eval()
    total_loss = 0
    hidden = model.init_hidden(data_source.size(1))
    for i in range(0, data_source.size(0) - 1, bptt):
        data, targets = get_batch(data_source, i, bptt)
        output, hidden = model(data, hidden)
        total_loss += len(data) * F.cross_entropy(model.decoder(output).view(-1, 100), targets).data
        hidden = repackage_hidden(hidden)
    return total_loss.item() / len(data_source)


model = RNNModel()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
corpus = torch.randint(0, 100, (STEPS * 20 + 1, 8))
train_total = train(model, optimizer, corpus)
val_loss = evaluate(model, corpus)
print(float(train_total), val_loss)
