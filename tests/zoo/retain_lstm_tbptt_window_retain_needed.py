# Source: https://github.com/pytorch/pytorch/issues/5901
# Shape: the tick-by-tick LSTM trained with truncated BPTT: every tick's loss is backwarded with retain_graph=True because later ticks of the same window backward through it, and every bptt ticks the optimizer steps and the (h, c) state is detached, so at most one window of graphs is alive and memory stays flat.
# Verdict: clean
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


def train(net, X, y, epochs=2, lr=1e-3, bptt=10):
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
            loss.backward(retain_graph=True)
            train_loss_total += loss.item()
            if (i + 1) % bptt == 0:
                optimizer.step()
                optimizer.zero_grad()
                hidden = tuple(h.detach() for h in hidden)
        print(epoch, train_loss_total / len(X))


if __name__ == "__main__":
    torch.manual_seed(0)
    t = torch.linspace(0, 30, 60)
    X = torch.stack([torch.sin(t), torch.cos(t), torch.sin(0.5 * t)], dim=-1)
    y = torch.sin(t + 0.1)
    train(Model(input_size=3), X, y)
