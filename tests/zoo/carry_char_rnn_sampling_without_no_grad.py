# Source: https://github.com/spro/practical-pytorch/issues/28
# Shape: char-RNN sampling loop feeds its hidden state (and the sampled character) back in at every step with autograd on; nothing is ever backwarded, so every step's graph stays chained to the hidden state and long samples run out of memory (measured: +238 KB per generated step)
# Verdict: leak
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, n_chars, hidden=512, layers=2):
        super().__init__()
        self.embed = nn.Embedding(n_chars, hidden)
        self.gru = nn.GRU(hidden, hidden, layers)
        self.decode = nn.Linear(hidden, n_chars)
        self.hidden_size, self.layers = hidden, layers

    def forward(self, char, hidden):
        out, hidden = self.gru(self.embed(char).view(1, 1, -1), hidden)
        return self.decode(out.view(1, -1)), hidden


def sample(model, prime, char_to_idx, idx_to_char, length=2000, temperature=0.8):
    hidden = torch.zeros(model.layers, 1, model.hidden_size)
    for ch in prime[:-1]:
        _, hidden = model(torch.tensor([char_to_idx[ch]]), hidden)  # TLK103
    current = torch.tensor([char_to_idx[prime[-1]]])
    text = prime
    for _ in range(length):
        logits, hidden = model(current, hidden)  # TLK103
        weights = logits.view(-1).div(temperature).exp()
        current = torch.multinomial(weights, 1)
        text += idx_to_char[current.item()]
    return text
