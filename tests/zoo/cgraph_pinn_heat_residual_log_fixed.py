# Source: https://discuss.pytorch.org/t/efficient-calculation-of-derivatives-for-pinn-solvers-in-pytorch/177249
# Shape: the PDE-residual loss (built from create_graph=True derivatives) is logged as a Python float, so the double-backward graph and the collocation leaves are freed after each step.
# Verdict: clean
import math
from collections import defaultdict
from typing import List

import torch
import torch.nn as nn


def diff(y: torch.Tensor, xs: List[torch.Tensor]) -> torch.Tensor:
    """Repeated partial derivative of y w.r.t. the tensors in xs (in order)."""
    grad = y
    ones = torch.ones_like(y)
    for x in xs:
        grad = torch.autograd.grad(grad, x, grad_outputs=ones, create_graph=True)[0]
    return grad


class PINN(nn.Module):
    def __init__(self, hidden=32, depth=3):
        super().__init__()
        layers, in_dim = [], 2
        for _ in range(depth):
            layers += [nn.Linear(in_dim, hidden), nn.Tanh()]
            in_dim = hidden
        layers.append(nn.Linear(hidden, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, inputs):
        x, t = inputs
        return self.net(torch.cat([x, t], dim=1))


def heat(u, x, t, alpha=0.1):
    return diff(u, [t]) - alpha * diff(u, [x, x])


class HeatTrainer:
    def __init__(self, model, n_collocation=512, n_boundary=128, alpha=0.1, lr=1e-3):
        self.model = model
        self.n_collocation = n_collocation
        self.n_boundary = n_boundary
        self.alpha = alpha
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = defaultdict(list)

    def sample(self, seed):
        g = torch.Generator().manual_seed(seed)
        x = torch.rand(self.n_collocation, 1, generator=g).requires_grad_(True)
        t = torch.rand(self.n_collocation, 1, generator=g).requires_grad_(True)
        xb = torch.randint(0, 2, (self.n_boundary, 1), generator=g).float()
        tb = torch.rand(self.n_boundary, 1, generator=g)
        x0 = torch.rand(self.n_boundary, 1, generator=g)
        return x, t, xb, tb, x0

    def step(self, seed):
        x, t, xb, tb, x0 = self.sample(seed)
        u = self.model([x, t])
        residual = heat(u, x, t, self.alpha)
        loss_pde = residual.pow(2).mean()
        loss_bc = self.model([xb, tb]).pow(2).mean()
        u0 = self.model([x0, torch.zeros_like(x0)])
        loss_ic = (u0 - torch.sin(math.pi * x0)).pow(2).mean()
        loss = loss_pde + loss_bc + loss_ic

        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        self.history['loss'].append(loss.item())
        self.history['pde'].append(loss_pde.item())
        self.history['bc'].append(loss_bc.item())
        return loss.item()


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    trainer = HeatTrainer(PINN())
    for seed in batches:
        trainer.step(seed)
    return trainer.history
