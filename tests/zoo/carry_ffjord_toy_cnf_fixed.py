# Source: https://github.com/rtqichen/ffjord/blob/17b16a59a3be71a63902a8fcbb724ae7ce5c3ad1/train_toy.py
# Shape: the running-average meters receive Python floats (loss.item()); the Hutchinson divergence uses autograd.grad(create_graph=True) but that graph is consumed by loss.backward() in the same iteration.
# Verdict: clean
"""Continuous normalizing flow (FFJORD) on a 2-D toy density, organised like
train_toy.py: argparse-style args, build_model(), compute_loss(), a
RunningAverageMeter per logged quantity and periodic no_grad validation."""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(**kw):
    args = argparse.Namespace(
        data="8gaussians", dims="32,32", num_blocks=1, time_length=0.5,
        divergence_fn="approximate", nonlinearity="softplus", solver="rk4",
        step_size=0.125, rademacher=True, batch_size=64, test_batch_size=64,
        lr=1e-3, weight_decay=0.0, val_freq=5)
    for k, v in kw.items():
        setattr(args, k, v)
    return args


# ------------------------------------------------------------------ lib/utils.py
class RunningAverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, momentum=0.99):
        self.momentum = momentum
        self.reset()

    def reset(self):
        self.val = None
        self.avg = 0

    def update(self, val):
        if self.val is None:
            self.avg = val
        else:
            self.avg = self.avg * self.momentum + val * (1 - self.momentum)
        self.val = val


# ------------------------------------------------------------------ lib/toy_data.py
def inf_train_gen(data, batch_size, generator):
    if data == "8gaussians":
        scale = 4.
        centers = torch.tensor([(1, 0), (-1, 0), (0, 1), (0, -1),
                                (1. / math.sqrt(2), 1. / math.sqrt(2)),
                                (1. / math.sqrt(2), -1. / math.sqrt(2)),
                                (-1. / math.sqrt(2), 1. / math.sqrt(2)),
                                (-1. / math.sqrt(2), -1. / math.sqrt(2))]) * scale
        idx = torch.randint(0, 8, (batch_size,), generator=generator)
        point = torch.randn(batch_size, 2, generator=generator) * 0.5 + centers[idx]
        return point / 1.414
    raise ValueError(data)


def make_batches(num_batches, batch_size=64, data="8gaussians", seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(num_batches):
        yield inf_train_gen(data, batch_size, g)


# ------------------------------------------------------------------ lib/layers
class ConcatSquashLinear(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self._layer = nn.Linear(dim_in, dim_out)
        self._hyper_bias = nn.Linear(1, dim_out, bias=False)
        self._hyper_gate = nn.Linear(1, dim_out)

    def forward(self, t, x):
        tt = t.view(1, 1)
        return self._layer(x) * torch.sigmoid(self._hyper_gate(tt)) + self._hyper_bias(tt)


class ODEnet(nn.Module):
    def __init__(self, hidden_dims, input_dim, nonlinearity="softplus"):
        super().__init__()
        dims = (input_dim,) + tuple(hidden_dims) + (input_dim,)
        self.layers = nn.ModuleList([ConcatSquashLinear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.act = {"softplus": F.softplus, "tanh": torch.tanh}[nonlinearity]

    def forward(self, t, y):
        dx = y
        for i, layer in enumerate(self.layers):
            dx = layer(t, dx)
            if i < len(self.layers) - 1:
                dx = self.act(dx)
        return dx


def divergence_approx(f, y, e=None):
    e_dzdx = torch.autograd.grad(f, y, e, create_graph=True)[0]
    e_dzdx_e = e_dzdx * e
    return e_dzdx_e.view(y.shape[0], -1).sum(dim=1)


def sample_rademacher_like(y):
    return torch.randint(low=0, high=2, size=y.shape).to(y) * 2 - 1


class ODEfunc(nn.Module):
    def __init__(self, diffeq, rademacher=True):
        super().__init__()
        self.diffeq = diffeq
        self.rademacher = rademacher
        self.register_buffer("_num_evals", torch.tensor(0.))
        self._e = None

    def before_odeint(self, e=None):
        self._e = e
        self._num_evals.fill_(0)

    def num_evals(self):
        return self._num_evals.item()

    def forward(self, t, states):
        y = states[0]
        self._num_evals += 1
        if self._e is None:
            self._e = sample_rademacher_like(y) if self.rademacher else torch.randn_like(y)
        with torch.enable_grad():
            y.requires_grad_(True)
            t = torch.as_tensor(t).type_as(y)
            dy = self.diffeq(t, y)
            if not self.training:
                divergence = torch.zeros(y.shape[0], device=y.device)
            else:
                divergence = divergence_approx(dy, y, e=self._e)
        return dy, -divergence.view(-1, 1)


def odeint_rk4(func, y0, t0, t1, step_size):
    """fixed-step RK4 on a tuple state (stands in for torchdiffeq.odeint)"""
    n = max(int(round(abs(t1 - t0) / step_size)), 1)
    h = (t1 - t0) / n
    y = y0
    t = t0
    for _ in range(n):
        k1 = func(t, y)
        k2 = func(t + h / 2, tuple(a + h / 2 * b for a, b in zip(y, k1)))
        k3 = func(t + h / 2, tuple(a + h / 2 * b for a, b in zip(y, k2)))
        k4 = func(t + h, tuple(a + h * b for a, b in zip(y, k3)))
        y = tuple(a + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
                  for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4))
        t = t + h
    return y


class CNF(nn.Module):
    def __init__(self, odefunc, T=1.0, solver="rk4", step_size=0.125):
        super().__init__()
        self.odefunc = odefunc
        self.T = T
        self.solver = solver
        self.step_size = step_size

    def forward(self, z, logpz=None, reverse=False):
        _logpz = torch.zeros(z.shape[0], 1).to(z) if logpz is None else logpz
        t0, t1 = (self.T, 0.0) if reverse else (0.0, self.T)
        self.odefunc.before_odeint()
        z_t, logpz_t = odeint_rk4(self.odefunc, (z, _logpz), t0, t1, self.step_size)
        return z_t, logpz_t

    def num_evals(self):
        return self.odefunc.num_evals()


class SequentialFlow(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.chain = nn.ModuleList(layers)

    def forward(self, x, logpx=None, reverse=False):
        inds = range(len(self.chain) - 1, -1, -1) if reverse else range(len(self.chain))
        for i in inds:
            x, logpx = self.chain[i](x, logpx, reverse=reverse)
        return x, logpx


# ------------------------------------------------------------------ train_toy.py
def standard_normal_logprob(z):
    logZ = -0.5 * math.log(2 * math.pi)
    return logZ - z.pow(2) / 2


def count_nfe(model):
    class AccNumEvals(object):
        def __init__(self):
            self.num_evals = 0

        def __call__(self, module):
            if isinstance(module, CNF):
                self.num_evals += module.num_evals()

    accumulator = AccNumEvals()
    model.apply(accumulator)
    return accumulator.num_evals


def build_model(args):
    hidden_dims = tuple(map(int, args.dims.split(",")))

    def build_cnf():
        diffeq = ODEnet(hidden_dims, 2, args.nonlinearity)
        odefunc = ODEfunc(diffeq, rademacher=args.rademacher)
        return CNF(odefunc, T=args.time_length, solver=args.solver, step_size=args.step_size)

    return SequentialFlow([build_cnf() for _ in range(args.num_blocks)])


def compute_loss(args, model, x):
    zero = torch.zeros(x.shape[0], 1).to(x)
    z, delta_logp = model(x, zero)
    logpz = standard_normal_logprob(z).sum(1, keepdim=True)
    logpx = logpz - delta_logp
    return -torch.mean(logpx)


def run(steps):
    torch.manual_seed(0)
    args = get_args()
    model = build_model(args)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    time_meter = RunningAverageMeter(0.97)
    loss_meter = RunningAverageMeter(0.97)
    nfe_meter = RunningAverageMeter(0.97)
    log = []
    end = time.time()
    best_loss = float("inf")
    model.train()
    for itr, x in enumerate(make_batches(steps, args.batch_size, args.data), start=1):
        optimizer.zero_grad()
        loss = compute_loss(args, model, x)
        loss.backward()
        optimizer.step()

        time_meter.update(time.time() - end)
        loss_meter.update(loss.item())
        nfe_meter.update(count_nfe(model))
        log.append("Iter {:04d} | Time {:.4f}({:.4f}) | Loss {:.6f}({:.6f}) | NFE {:.0f}({:.1f})".format(
            itr, time_meter.val, time_meter.avg, loss_meter.val, loss_meter.avg,
            nfe_meter.val, nfe_meter.avg))

        if itr % args.val_freq == 0:
            with torch.no_grad():
                model.eval()
                test_x = next(make_batches(1, args.test_batch_size, args.data, seed=itr))
                test_loss = compute_loss(args, model, test_x)
                if test_loss.item() < best_loss:
                    best_loss = test_loss.item()
                    best_state = {k: v.clone() for k, v in model.state_dict().items()}
                model.train()
        end = time.time()
    return {"model": model, "loss_meter": loss_meter, "nfe_meter": nfe_meter,
            "best_loss": best_loss, "log_tail": log[-5:]}


if __name__ == "__main__":
    run(10)
