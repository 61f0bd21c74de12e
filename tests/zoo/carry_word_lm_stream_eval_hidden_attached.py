# Source: https://github.com/pytorch/pytorch/issues/2198
# Shape: word-level LSTM language model scored on a long token stream chunk by chunk; the evaluation carries the hidden state from chunk to chunk without detaching it and without torch.no_grad(), so the hidden state drags the whole graph of every earlier chunk (saved activations included) through the pass.
# Verdict: leak
import math

import torch
import torch.nn as nn


class WordLSTM(nn.Module):
    def __init__(self, ntoken, ninp=200, nhid=200, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def stream_perplexity(lm, data_source, ntokens, bptt=35):
    lm.eval()
    crit = nn.CrossEntropyLoss()
    total_loss = 0.0
    hidden = lm.init_hidden(data_source.size(1))
    for i in range(0, data_source.size(0) - 1, bptt):
        chunk, targets = get_batch(data_source, i, bptt)
        output, hidden = lm(chunk, hidden)  # TLK103
        total_loss += len(chunk) * crit(output.view(-1, ntokens), targets).item()
    return math.exp(total_loss / (len(data_source) - 1))
