# Source: https://github.com/facebookresearch/higher/issues/10
# Shape: after each meta step the fast weights are detached and made leaves again (one-step truncated hypergradient), so the meta backward only covers the latest inner step and needs no retain_graph; nothing is kept across outer iterations.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_IN, N_HIDDEN = 8, 128
BATCH = 64


def init_params(gen):
    w1 = torch.randn(N_HIDDEN, N_IN, generator=gen) / math.sqrt(N_IN)
    b1 = torch.zeros(N_HIDDEN)
    w2 = torch.randn(N_HIDDEN, N_HIDDEN, generator=gen) / math.sqrt(N_HIDDEN)
    b2 = torch.zeros(N_HIDDEN)
    w3 = torch.randn(1, N_HIDDEN, generator=gen) / math.sqrt(N_HIDDEN)
    b3 = torch.zeros(1)
    return [p.requires_grad_() for p in (w1, b1, w2, b2, w3, b3)]


def functional_mlp(x, params):
    w1, b1, w2, b2, w3, b3 = params
    h = torch.tanh(F.linear(x, w1, b1))
    h = torch.tanh(F.linear(h, w2, b2))
    return F.linear(h, w3, b3)


class OnlineLRLearner:
    """Learns the inner-loop learning rate online from a held-out batch."""

    def __init__(self, params, init_lr=0.05, meta_lr=1e-2):
        self.fast_weights = params
        self.log_lr = nn.Parameter(torch.tensor(math.log(init_lr)))
        self.meta_opt = torch.optim.Adam([self.log_lr], lr=meta_lr)

    def inner_step(self, x, y):
        loss = F.mse_loss(functional_mlp(x, self.fast_weights), y)
        grads = torch.autograd.grad(loss, self.fast_weights, create_graph=True)
        lr = self.log_lr.exp()
        self.fast_weights = [w - lr * g for w, g in zip(self.fast_weights, grads)]
        return loss.item()

    def meta_step(self, x_val, y_val):
        val_loss = F.mse_loss(functional_mlp(x_val, self.fast_weights), y_val)
        self.meta_opt.zero_grad()
        val_loss.backward()
        self.meta_opt.step()
        self.fast_weights = [w.detach().requires_grad_() for w in self.fast_weights]
        return val_loss.item()


def make_batches(n):
    g = torch.Generator().manual_seed(17)
    freq = torch.rand(N_IN, generator=g) * 2
    out = []
    for _ in range(n):
        x, xv = torch.randn(BATCH, N_IN, generator=g), torch.randn(BATCH, N_IN, generator=g)
        out.append((x, torch.sin(x @ freq)[:, None], xv, torch.sin(xv @ freq)[:, None]))
    return out


def run(steps):
    torch.manual_seed(0)
    learner = OnlineLRLearner(init_params(torch.Generator().manual_seed(0)))
    history = []
    for x, y, x_val, y_val in make_batches(steps):
        train_loss = learner.inner_step(x, y)
        val_loss = learner.meta_step(x_val, y_val)
        history.append((train_loss, val_loss, learner.log_lr.exp().item()))
    return learner, history


if __name__ == "__main__":
    print(run(10)[1][-1])
