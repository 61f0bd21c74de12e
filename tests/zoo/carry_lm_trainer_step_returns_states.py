# Source: https://github.com/yunjey/pytorch-tutorial/issues/90
# Shape: a word-level LSTM language model trainer whose train_step method backwards the loss and returns (loss.item(), states) with the new (h, c) still attached; the epoch loop feeds the returned states into the next step without the tutorial's detach, so the second backward reaches the first batch's freed graph and raises (measured).
# Verdict: leak
import torch
import torch.nn as nn


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size=128, hidden_size=1024, num_layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        out, (h, c) = self.lstm(self.embed(x), h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        return self.linear(out), (h, c)


class LMTrainer:
    def __init__(self, model: RNNLM, lr=0.002, clip=0.5):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.clip = clip

    def train_step(self, inputs, targets, states):
        outputs, states = self.model(inputs, states)
        loss = self.criterion(outputs, targets.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        return loss.item(), states

    def train_epoch(self, ids, batch_size, seq_length, num_layers, hidden_size):
        states = (torch.zeros(num_layers, batch_size, hidden_size), torch.zeros(num_layers, batch_size, hidden_size))
        total, steps = 0.0, 0
        for i in range(0, ids.size(1) - seq_length, seq_length):
            inputs = ids[:, i:i + seq_length]
            targets = ids[:, i + 1:i + 1 + seq_length]
            loss, states = self.train_step(inputs, targets, states)  # TLK103
            total += loss
            steps += 1
        return total / max(steps, 1)
