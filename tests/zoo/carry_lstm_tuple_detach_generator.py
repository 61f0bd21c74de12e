# Source: https://www.codegenes.net/blog/detach-hidden-states-pytorch
# Shape: a stateful LSTM forecaster carries (h, c) between consecutive windows of one long series and detaches both with a generator expression before each forward pass (truncated BPTT)
# Verdict: clean
import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, n_features=8, hidden=128):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, window, state):
        out, state = self.lstm(window, state)
        return self.head(out[:, -1]), state


net = Forecaster()
optim = torch.optim.AdamW(net.parameters(), lr=1e-3)
mse = nn.MSELoss()

for epoch in range(50):
    state = (torch.zeros(1, 4, 128), torch.zeros(1, 4, 128))
    for window, target in series_windows:
        state = tuple(s.detach() for s in state)
        pred, state = net(window, state)
        loss = mse(pred, target)
        optim.zero_grad()
        loss.backward()
        optim.step()
