# Source: https://github.com/flairNLP/flair/issues/1062
# Shape: a character LM trained with truncated BPTT carries the LSTM hidden state from one chunk to the next, but repackages (detaches) it before each chunk and logs the loss with .item(), so each backward only owns its own chunk.
# Verdict: clean
import math

import torch
import torch.nn as nn


class LanguageModel(nn.Module):
    def __init__(self, dictionary_size, embedding_size=32, hidden_size=64, nlayers=1, dropout=0.1):
        super().__init__()
        self.encoder = nn.Embedding(dictionary_size, embedding_size)
        self.rnn = nn.LSTM(embedding_size, hidden_size, nlayers, dropout=0.0)
        self.drop = nn.Dropout(dropout)
        self.decoder = nn.Linear(hidden_size, dictionary_size)
        self.hidden_size, self.nlayers = hidden_size, nlayers

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.hidden_size),
                weight.new_zeros(self.nlayers, bsz, self.hidden_size))

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(output)), hidden


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class LanguageModelTrainer:
    def __init__(self, model, corpus, sequence_length=16, mini_batch_size=8, lr=20.0, clip=0.25):
        self.model = model
        self.corpus = corpus
        self.sequence_length = sequence_length
        self.mini_batch_size = mini_batch_size
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.clip = clip
        self.loss_function = nn.CrossEntropyLoss()
        self.hidden = model.init_hidden(mini_batch_size)
        self.total_loss = 0.0
        self.steps = 0

    def get_batch(self, i):
        data = self.corpus[:, i: i + self.sequence_length]
        target = self.corpus[:, i + 1: i + 1 + self.sequence_length]
        return data.t().contiguous(), target.t().contiguous().view(-1)

    def train_chunk(self, i):
        data, targets = self.get_batch(i)
        self.hidden = repackage_hidden(self.hidden)
        self.model.zero_grad()
        output, self.hidden = self.model(data, self.hidden)
        loss = self.loss_function(output.view(-1, output.size(-1)), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.total_loss += loss.item()
        self.steps += 1
        return loss.item()

    def perplexity(self):
        return math.exp(self.total_loss / max(self.steps, 1))


def make_batches(n):
    torch.manual_seed(0)
    # chunk start offsets into the streamed corpus, in order
    return [int(i) * 16 for i in range(n)]


def run(batches):
    torch.manual_seed(1)
    dictionary_size = 40
    corpus = torch.randint(0, dictionary_size, (8, 16 * 64 + 1))
    model = LanguageModel(dictionary_size)
    trainer = LanguageModelTrainer(model, corpus)
    for offset in batches:
        trainer.train_chunk(offset % (16 * 64))
    return trainer.perplexity()
