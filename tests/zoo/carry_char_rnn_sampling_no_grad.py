# Source: https://github.com/flairNLP/flair/issues/210
# Shape: language-model text generation carries the hidden state from character to character inside a method decorated with torch.no_grad(), so no graph is recorded (measured: 0 B per generated step)
# Verdict: clean
import torch
import torch.nn as nn


class CharLanguageModel(nn.Module):
    def __init__(self, n_chars, hidden=1024):
        super().__init__()
        self.encoder = nn.Embedding(n_chars, 100)
        self.rnn = nn.LSTM(100, hidden)
        self.decoder = nn.Linear(hidden, n_chars)
        self.hidden_size = hidden

    def forward(self, chars, state):
        out, state = self.rnn(self.encoder(chars), state)
        return self.decoder(out), state

    @torch.no_grad()
    def generate_text(self, start_idx, number_of_characters=1000, temperature=1.0):
        state = (torch.zeros(1, 1, self.hidden_size), torch.zeros(1, 1, self.hidden_size))
        current = torch.tensor([[start_idx]])
        produced = []
        for _ in range(number_of_characters):
            logits, state = self(current, state)
            probs = torch.softmax(logits.view(-1) / temperature, dim=0)
            current = torch.multinomial(probs, 1).view(1, 1)
            produced.append(current.item())
        return produced
