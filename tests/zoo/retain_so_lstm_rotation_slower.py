# Source: https://stackoverflow.com/questions/50899548/pytorch-0-4-lstm-why-does-each-epoch-get-slower
# Shape: The LSTM's (h, c) is stored on the model in forward() and fed back in the next epoch without detach, so every epoch's graph hangs off the previous one; backward(retain_graph=True) hides the "backward through the graph a second time" error and each epoch walks (and keeps) the whole growing chain.
# Verdict: leak
import math
import time
import datetime

import torch
import torch.nn as nn

# ---- toy problem settings (as in the question: a 3-vector rotated by R at every step)
IN_DIM = 3
HIDDEN = 48
OUT_LEN = 24
BATCH = 8
LR = 0.05


def rotation_matrix(theta=0.3):
    c, s = math.cos(theta), math.sin(theta)
    return torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def make_batches(n_batches=1, seed=0):
    """Input: the start vector at T0 then zero padding; target: vector rotated k times."""
    torch.manual_seed(seed)
    R = rotation_matrix()
    batches = []
    for _ in range(n_batches):
        v0 = torch.randn(BATCH, IN_DIM)
        v0 = v0 / v0.norm(dim=1, keepdim=True)
        inp = torch.zeros(OUT_LEN, BATCH, IN_DIM)
        inp[0] = v0
        tgt = torch.zeros(OUT_LEN, BATCH, IN_DIM)
        v = v0
        for t in range(OUT_LEN):
            tgt[t] = v
            v = v @ R.t()
        batches.append((inp, tgt))
    return batches


class RotLSTM(nn.Module):
    def __init__(self, in_dim, hidden_dim, batch_size):
        super(RotLSTM, self).__init__()
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.lstm = nn.LSTM(in_dim, hidden_dim)
        self.hidden2out = nn.Linear(hidden_dim, in_dim)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, self.batch_size, self.hidden_dim),
                torch.zeros(1, self.batch_size, self.hidden_dim))

    def forward(self, seq):
        lstm_out, self.hidden = self.lstm(seq, self.hidden)
        return self.hidden2out(lstm_out)


def sgd_step(params, lr):
    # plain SGD written the 0.4 way, straight on .data
    for p in params:
        if p.grad is not None:
            p.data.add_(p.grad.data, alpha=-lr)


def mean_l2(out, tgt):
    return (out - tgt).pow(2).sum(-1).sqrt().mean()


def run(steps):
    torch.manual_seed(0)
    (inp, tgt), = make_batches(1)
    model = RotLSTM(IN_DIM, HIDDEN, BATCH)
    losses, deltas = [], []
    prev = datetime.datetime.now()
    for epoch in range(steps):
        model.zero_grad()
        out = model(inp)
        loss = mean_l2(out, tgt)
        loss.backward(retain_graph=True)  # TLK202
        sgd_step(model.parameters(), LR)
        losses.append(loss.item())
        now = datetime.datetime.now()
        deltas.append((now - prev).total_seconds())
        if epoch % 10 == 0:
            print("epoch: %3d,  loss: %.4f,  time delta: %s" % (epoch, loss.item(), now - prev))
        prev = now
    return {"model": model, "losses": losses, "deltas": deltas}


if __name__ == "__main__":
    run(10)
