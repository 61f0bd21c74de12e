# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Shape: a leaky RNN regressor maps sin windows to cos windows, passing its hidden state into the next window, and silences the second-backward error with retain_graph=True instead of cutting the state.
# Verdict: leak
import math
import torch
import torch.nn as nn


class LeakyRNN(nn.Module):
    """Echo-state style cell: fixed leak on the state, learned input and readout maps."""

    def __init__(self, hid=16, leak=0.7):
        super().__init__()
        self.inp = nn.Linear(1, hid)
        self.out = nn.Linear(hid, 1)
        self.hid = hid
        self.leak = leak

    def forward(self, x, h_state):
        if h_state is None:
            h_state = torch.zeros(x.size(0), self.hid)
        outs = []
        for t in range(x.size(1)):
            h_state = torch.tanh(self.inp(x[:, t]) + self.leak * h_state)
            outs.append(h_state)
        r_out = torch.stack(outs, 1)
        return self.out(r_out), h_state


def make_batches(n=24, seed=0):
    out = []
    steps = 10
    for k in range(n):
        t = torch.linspace(k * math.pi, (k + 1) * math.pi, steps)
        out.append((torch.sin(t).view(1, steps, 1), torch.cos(t).view(1, steps, 1)))
    return out


def run(batches):
    rnn = LeakyRNN()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=0.02)
    loss_func = nn.MSELoss()
    h_state = None
    for x, y in batches:
        prediction, h_state = rnn(x, h_state)
        loss = loss_func(prediction, y)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
    print("final loss", loss.item())


if __name__ == "__main__":
    run(make_batches())
