# Source: https://github.com/yangsenius/learning-to-learn-by-pytorch/issues/3
# Shape: the same LSTM-optimizer Learner with its step history fixed: each unrolled step backwards with retain_graph=True because the summed meta-loss is backwarded through the same graphs right after the unroll, the LSTM state is detached between unrolls (truncated backprop), and the kept per-step history holds loss.detach(), so nothing outlives an unroll.
# Verdict: clean
import torch
import torch.nn as nn

DIM = 10
BATCH = 128


def quadratic(W, Y, x):
    return ((torch.matmul(W, x.unsqueeze(-1)).squeeze(-1) - Y) ** 2).sum(dim=1).mean(dim=0)


class LSTMOptimizer(nn.Module):
    def __init__(self, dim=DIM, hidden=20, layers=2):
        super().__init__()
        self.hidden, self.layers = hidden, layers
        self.lstm = nn.LSTM(dim, hidden, layers)
        self.out = nn.Linear(hidden, dim)

    def forward(self, grads, state):
        if state is None:
            state = (torch.zeros(self.layers, grads.size(0), self.hidden),
                     torch.zeros(self.layers, grads.size(0), self.hidden))
        update, state = self.lstm(grads.unsqueeze(0), state)
        return self.out(update).squeeze(0), state


class Learner:
    def __init__(self, f, optimizer, unroll_steps):
        self.f = f
        self.optimizer = optimizer
        self.unroll_steps = unroll_steps
        self.state = None
        self.losses = []
        self.W = torch.randn(BATCH, DIM, DIM)
        self.Y = torch.randn(BATCH, DIM)

    def __call__(self, num_roll):
        if num_roll == 0:
            self.state = None
            self.W, self.Y = torch.randn(BATCH, DIM, DIM), torch.randn(BATCH, DIM)
        x = torch.zeros(BATCH, DIM, requires_grad=True)
        state = self.state
        global_loss = 0
        for _ in range(self.unroll_steps):
            loss = self.f(self.W, self.Y, x)
            global_loss += loss
            loss.backward(retain_graph=True)
            update, state = self.optimizer(x.grad.clone().detach(), state)
            self.losses.append(loss.detach())
            x = x + update
            x.retain_grad()
        self.state = (state[0].detach(), state[1].detach())
        return global_loss


def learning_to_learn(lstm_opt, global_steps, unrolls_per_step, unroll_steps=5, lr=0.1):
    meta_opt = torch.optim.Adam(lstm_opt.parameters(), lr=lr)
    learner = Learner(quadratic, lstm_opt, unroll_steps)
    history = []
    for step in global_steps:
        for num in range(unrolls_per_step):
            global_loss = learner(num)
            meta_opt.zero_grad()
            global_loss.backward()
            meta_opt.step()
            history.append(global_loss.detach_())
    return history
