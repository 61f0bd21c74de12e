# Layout modelled on pytorch/examples (word_language_model/main.py with model.py beside it),
# the model module imported whole as the example does (`import model`).
import torch
import torch.nn as nn

import model
from utils import get_batch, move_state, repackage_hidden

criterion = nn.NLLLoss()


def train(lm, train_data, optimizer, bptt=35):
    lm.train()
    hidden = lm.init_hidden(20)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)  # clean: detached every batch
        optimizer.zero_grad()
        output, hidden = lm(data, hidden)
        loss = criterion(output.view(-1, output.size(-1)), targets)
        loss.backward()
        optimizer.step()


def train_on_device(lm, train_data, optimizer, device, bptt=35):
    hidden = lm.init_hidden(20)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        hidden = move_state(hidden, device)
        optimizer.zero_grad()
        output, hidden = lm(data, hidden)
        loss = criterion(output.view(-1, output.size(-1)), targets)
        loss.backward(retain_graph=True)  # expect: TLK202
        optimizer.step()


def main(corpus):
    lm = model.RNNModel(len(corpus.dictionary))
    optimizer = torch.optim.SGD(lm.parameters(), lr=20)
    train(lm, corpus.train, optimizer)
