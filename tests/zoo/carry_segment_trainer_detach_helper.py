# Source: https://github.com/dpressel/dliss-tutorial/issues/1
# Shape: a language-model trainer class carries the LSTM (h, c) from one BPTT segment to the next for context, but passes it through its own recursive _detach helper at the top of every segment, so each backward stops at the segment boundary.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab_size, embed_dim=256, hidden=512, layers=2):
        super().__init__()
        self.hidden, self.layers = hidden, layers
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden, layers, batch_first=True)
        self.proj = nn.Linear(hidden, vocab_size)

    def init_hidden(self, batch_size):
        weight = self.proj.weight
        return (weight.new_zeros(self.layers, batch_size, self.hidden),
                weight.new_zeros(self.layers, batch_size, self.hidden))

    def forward(self, tokens, hidden):
        out, hidden = self.lstm(self.embed(tokens), hidden)
        return self.proj(out), hidden


class SegmentTrainer:
    def __init__(self, model, optimizer, bptt=35, clip=0.25):
        self.model = model
        self.optimizer = optimizer
        self.bptt = bptt
        self.clip = clip

    @staticmethod
    def _detach(hidden):
        if isinstance(hidden, torch.Tensor):
            return hidden.detach()
        return tuple(SegmentTrainer._detach(h) for h in hidden)

    def train_epoch(self, stream, batch_size):
        self.model.train()
        hidden = self.model.init_hidden(batch_size)
        total_loss = 0.0
        steps = 0
        for start in range(0, stream.size(1) - 1, self.bptt):
            seq_len = min(self.bptt, stream.size(1) - 1 - start)
            inputs = stream[:, start:start + seq_len]
            targets = stream[:, start + 1:start + 1 + seq_len]
            hidden = self._detach(hidden)
            logits, hidden = self.model(inputs, hidden)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.optimizer.step()
            total_loss += loss.item()
            steps += 1
        return total_loss / steps
