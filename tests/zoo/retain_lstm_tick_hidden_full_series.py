# Source: https://github.com/pytorch/pytorch/issues/5901
# Shape: to "keep all time relationships" an LSTM is fed a long series one tick at a time with the hidden state passed from tick to tick, and because the second backward failed the per-tick loss.backward() was given retain_graph=True; the weights are stepped once per epoch, so nothing crashes, but every tick's backward walks and keeps the graphs of all earlier ticks, and memory and step time grow through the epoch.
# Verdict: leak
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, num_layers=2, hidden_size=64):
        super().__init__()
        self.lstm = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)
        self.linear = nn.Linear(hidden_size, 1)

    def forward(self, x, hidden=None):
        out, hidden = self.lstm(x, hidden)
        return self.linear(out[-1]), hidden


def train(net, X, y, epochs=2, lr=1e-3):
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        hidden = None
        train_loss_total = 0.0
        optimizer.zero_grad()
        for i in range(0, len(X)):
            single_tick = X[i].view(1, 1, X[i].shape[-1])
            y_pred, hidden = net(single_tick, hidden)
            loss = criterion(y_pred.view(-1), y[i].view(-1))
            loss.backward(retain_graph=True)  # TLK202
            train_loss_total += loss.item()
        optimizer.step()
        print(epoch, train_loss_total / len(X))


if __name__ == "__main__":
    torch.manual_seed(0)
    t = torch.linspace(0, 30, 60)
    X = torch.stack([torch.sin(t), torch.cos(t), torch.sin(0.5 * t)], dim=-1)
    y = torch.sin(t + 0.1)
    train(Model(input_size=3), X, y)
