# Source: https://github.com/quark0/darts/issues/56
# Shape: a recurrent architecture-search epoch walks the token stream with a while loop over BPTT windows of random length; the port to a newer PyTorch dropped the call that repackaged the hidden state, so the hidden state returned for each window feeds the next one, and loss.backward(retain_graph=True) was added to silence the second-backward error: the graph of the whole epoch is kept.
# Verdict: leak
import numpy as np
import torch
import torch.nn as nn


class SearchRNNModel(nn.Module):
    def __init__(self, ntoken, ninp=300, nhid=300):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.GRU(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, self.nhid)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return torch.log_softmax(self.decoder(output), dim=-1), hidden


def train_search_epoch(model, train_data, optimizer, batch_size, bptt=35, clip=0.25):
    criterion = nn.NLLLoss()
    hidden = model.init_hidden(batch_size)
    total_loss = 0.0
    i = 0
    while i < train_data.size(0) - 2:
        seq_len = max(5, int(np.random.normal(bptt, 5)))
        seq_len = min(seq_len, train_data.size(0) - 1 - i)
        inputs = train_data[i:i + seq_len]
        targets = train_data[i + 1:i + 1 + seq_len].reshape(-1)
        optimizer.zero_grad()
        log_prob, hidden = model(inputs, hidden)
        raw_loss = criterion(log_prob.view(-1, log_prob.size(-1)), targets)
        raw_loss.backward(retain_graph=True)  # TLK202
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total_loss += raw_loss.item() * seq_len
        i += seq_len
    return total_loss / train_data.size(0)
