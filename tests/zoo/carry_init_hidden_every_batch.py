# Source: https://github.com/myscience/x-lstm/issues/4
# Shape: recurrent classifier builds a fresh zero state sized to each batch with init_hidden(); nothing of the previous batch's graph is fed forward
# Verdict: clean
import torch
import torch.nn as nn


class GRUClassifier(nn.Module):
    def __init__(self, in_dim, hid, n_cls, layers=2):
        super().__init__()
        self.hid, self.layers = hid, layers
        self.gru = nn.GRU(in_dim, hid, num_layers=layers, batch_first=True)
        self.fc = nn.Linear(hid, n_cls)

    def init_hidden(self, bs):
        return torch.zeros(self.layers, bs, self.hid, device=self.fc.weight.device)

    def forward(self, x, hidden):
        out, hidden = self.gru(x, hidden)
        return self.fc(out[:, -1]), hidden


model = GRUClassifier(40, 256, 12)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(20):
    for feats, labels in train_loader:
        hidden = model.init_hidden(feats.size(0))
        logits, hidden = model(feats, hidden)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
