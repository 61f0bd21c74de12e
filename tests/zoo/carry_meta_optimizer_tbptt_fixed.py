# Source: https://github.com/ikostrikov/pytorch-meta-optimizer/blob/master/main.py
# Shape: the per-window meta losses are collected in a list, summed and backwarded at the end of each truncated-BPTT window, and the LSTM optimizer state carried between windows is .detach()-ed, so no graph outlives its window.
# Verdict: clean
import math
from functools import reduce
from operator import mul

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

OPTIMIZER_STEPS = 4
TRUNCATED_BPTT_STEP = 2
BATCH = 32


def preprocess_gradients(x):
    p = 10
    eps = 1e-6
    indicator = (x.abs() > math.exp(-p)).float()
    x1 = (x.abs() + eps).log() / p * indicator - (1 - indicator)
    x2 = x.sign() * indicator + math.exp(p) * x * (1 - indicator)
    return torch.cat((x1.unsqueeze(1), x2.unsqueeze(1)), 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(10, 32)
        self.linear2 = nn.Linear(32, 1)

    def forward(self, x):
        return self.linear2(torch.sigmoid(self.linear1(x)))


class MetaModel:
    """Keeps track of meta updates by replacing parameters with plain tensors."""

    def __init__(self, model):
        self.model = model

    def reset(self):
        for module in self.model.children():
            module._parameters["weight"] = Variable(module._parameters["weight"].data)
            module._parameters["bias"] = Variable(module._parameters["bias"].data)

    def get_flat_params(self):
        params = []
        for module in self.model.children():
            params.append(module._parameters["weight"].view(-1))
            params.append(module._parameters["bias"].view(-1))
        return torch.cat(params)

    def set_flat_params(self, flat_params):
        offset = 0
        for module in self.model.children():
            weight_shape = module._parameters["weight"].size()
            bias_shape = module._parameters["bias"].size()
            weight_flat_size = reduce(mul, weight_shape, 1)
            bias_flat_size = reduce(mul, bias_shape, 1)
            module._parameters["weight"] = flat_params[offset:offset + weight_flat_size].view(*weight_shape)
            module._parameters["bias"] = flat_params[offset + weight_flat_size:offset + weight_flat_size + bias_flat_size].view(*bias_shape)
            offset += weight_flat_size + bias_flat_size

    def copy_params_from(self, model):
        for modelA, modelB in zip(self.model.parameters(), model.parameters()):
            modelA.data.copy_(modelB.data)

    def copy_params_to(self, model):
        for modelA, modelB in zip(self.model.parameters(), model.parameters()):
            modelB.data.copy_(modelA.data)


class MetaOptimizer(nn.Module):
    def __init__(self, model, num_layers=2, hidden_size=10):
        super().__init__()
        self.meta_model = model
        self.hidden_size = hidden_size
        self.linear1 = nn.Linear(3, hidden_size)
        self.ln1 = nn.LayerNorm(hidden_size)
        self.lstms = nn.ModuleList([nn.LSTMCell(hidden_size, hidden_size) for _ in range(num_layers)])
        self.linear2 = nn.Linear(hidden_size, 1)
        self.linear2.weight.data.mul_(0.1)
        self.linear2.bias.data.fill_(0.0)

    def reset_lstm(self, keep_states=False, model=None):
        self.meta_model.reset()
        self.meta_model.copy_params_from(model)
        if keep_states:
            for i in range(len(self.lstms)):
                self.hx[i] = self.hx[i].detach()
                self.cx[i] = self.cx[i].detach()
        else:
            self.hx = [Variable(torch.zeros(1, self.hidden_size)) for _ in self.lstms]
            self.cx = [Variable(torch.zeros(1, self.hidden_size)) for _ in self.lstms]

    def forward(self, x):
        x = torch.tanh(self.ln1(self.linear1(x)))
        for i in range(len(self.lstms)):
            if x.size(0) != self.hx[i].size(0):
                self.hx[i] = self.hx[i].expand(x.size(0), self.hx[i].size(1))
                self.cx[i] = self.cx[i].expand(x.size(0), self.cx[i].size(1))
            self.hx[i], self.cx[i] = self.lstms[i](x, (self.hx[i], self.cx[i]))
            x = self.hx[i]
        return self.linear2(x).squeeze()

    def meta_update(self, model_with_grads):
        grads = []
        for module in model_with_grads.children():
            grads.append(module._parameters["weight"].grad.data.view(-1))
            grads.append(module._parameters["bias"].grad.data.view(-1))
        flat_params = self.meta_model.get_flat_params()
        flat_grads = preprocess_gradients(torch.cat(grads))
        inputs = Variable(torch.cat((flat_grads, flat_params.data.unsqueeze(1)), 1))
        flat_params = flat_params + self(inputs)
        self.meta_model.set_flat_params(flat_params)
        self.meta_model.copy_params_to(model_with_grads)
        return self.meta_model.model


def make_batches(n):
    g = torch.Generator().manual_seed(19)
    w_true = torch.randn(10, 1, generator=g)
    out = []
    for _ in range(n * (OPTIMIZER_STEPS + 1)):
        x = torch.randn(BATCH, 10, generator=g)
        out.append((x, x @ w_true))
    return out


def run(steps):
    torch.manual_seed(0)
    meta_optimizer = MetaOptimizer(MetaModel(Model()))
    optimizer = optim.Adam(meta_optimizer.parameters(), lr=1e-3)
    loss_fn = lambda f_x, y: (f_x - y).pow(2).mean()
    data = iter(make_batches(steps))
    decrease_in_loss = 0.0
    for i in range(steps):
        model = Model()
        x, y = next(data)
        initial_loss = loss_fn(model(x), y)
        for k in range(OPTIMIZER_STEPS // TRUNCATED_BPTT_STEP):
            meta_optimizer.reset_lstm(keep_states=k > 0, model=model)
            window_losses = []
            for j in range(TRUNCATED_BPTT_STEP):
                x, y = next(data)
                f_x = model(x)
                loss = loss_fn(f_x, y)
                model.zero_grad()
                loss.backward()
                meta_model = meta_optimizer.meta_update(model)
                f_x = meta_model(x)
                loss = loss_fn(f_x, y)
                window_losses.append(loss)
            meta_optimizer.zero_grad()
            torch.stack(window_losses).sum().backward()
            for param in meta_optimizer.parameters():
                param.grad.data.clamp_(-1, 1)
            optimizer.step()
        decrease_in_loss += loss.item() / initial_loss.item()
    return meta_optimizer, decrease_in_loss / steps


if __name__ == "__main__":
    print(run(10)[1])
