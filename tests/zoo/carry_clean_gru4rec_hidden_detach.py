# Source: https://github.com/hungpthanh/GRU4REC-pytorch/blob/master/lib/trainer.py
# Shape: session-parallel GRU4Rec carries the GRU hidden state across mini-batches but resets finished sessions and detaches it every step, and logs loss.item(); nothing attached survives a step.
# Verdict: clean
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

N_ITEMS = 60
N_EVENTS = 400


class GRU4REC(nn.Module):
    def __init__(self, input_size=N_ITEMS, hidden_size=64, output_size=N_ITEMS, num_layers=1, batch_size=8,
                 embedding_dim=32):
        super().__init__()
        self.hidden_size, self.num_layers, self.batch_size = hidden_size, num_layers, batch_size
        self.look_up = nn.Embedding(input_size, embedding_dim)
        self.gru = nn.GRU(embedding_dim, hidden_size, num_layers)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden):
        embedded = self.look_up(input).unsqueeze(0)
        output, hidden = self.gru(embedded, hidden)
        logit = torch.tanh(self.h2o(output.view(-1, output.size(-1))))
        return logit, hidden

    def init_hidden(self):
        return torch.zeros(self.num_layers, self.batch_size, self.hidden_size)


class TOP1Loss(nn.Module):
    def forward(self, logit):
        diff = -(logit.diag().view(-1, 1).expand_as(logit) - logit)
        return torch.sigmoid(diff).mean() + torch.sigmoid(logit ** 2).mean()


class Trainer:
    def __init__(self, model, optim, loss_func):
        self.model, self.optim, self.loss_func = model, optim, loss_func

    def train_epoch(self, dataloader):
        self.model.train()
        losses = []

        def reset_hidden(hidden, mask):
            """Helper function that resets hidden state when some sessions terminate"""
            if len(mask) != 0:
                hidden[:, mask, :] = 0
            return hidden

        hidden = self.model.init_hidden()
        for ii, (input, target, mask) in enumerate(dataloader):
            self.optim.zero_grad()
            hidden = reset_hidden(hidden, mask).detach()
            logit, hidden = self.model(input, hidden)
            logit_sampled = logit[:, target.view(-1)]
            loss = self.loss_func(logit_sampled)
            losses.append(loss.item())
            loss.backward()
            self.optim.step()
        return sum(losses) / len(losses), hidden


class SessionDataLoader:
    """Yields (input, target, mask) for session-parallel mini-batches."""

    def __init__(self, steps):
        g = torch.Generator().manual_seed(19)
        self.items = torch.randint(0, N_ITEMS, (N_EVENTS,), generator=g)
        self.steps = steps

    def __iter__(self):
        for pos, ends in self.steps:
            input = self.items[pos:pos + 8]
            target = self.items[pos + 1:pos + 9]
            yield input, target, ends


def make_batches(n):
    rng = random.Random(0)
    return [(rng.randrange(0, N_EVENTS - 10), [rng.randrange(8)] if rng.random() < 0.3 else []) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = GRU4REC()
    optim = torch.optim.Adagrad(model.parameters(), lr=0.05)
    trainer = Trainer(model, optim, TOP1Loss())
    mean_loss, hidden = trainer.train_epoch(SessionDataLoader(batches))
    return mean_loss, hidden
