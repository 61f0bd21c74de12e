# Source: https://github.com/pytorch/pytorch/issues/64586
# Shape: the same WGAN-GP step, but the penalty is logged with .item() and the per-step tensors go out of scope; nothing from the create_graph backward outlives the iteration (measured: 0 B/iter)
# Verdict: clean
import torch
from torch import autograd

gp_history = []
for step, real in enumerate(loader):
    z = torch.randn(real.size(0), 128)
    fake = netG(z).detach()
    eps = torch.rand(real.size(0), 1, 1, 1)
    mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
    mixed_scores = netD(mixed)
    grads = autograd.grad(mixed_scores.sum(), mixed, create_graph=True)[0]
    penalty = 10.0 * ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
    d_cost = netD(fake).mean() - netD(real).mean() + penalty
    optD.zero_grad()
    d_cost.backward()
    optD.step()
    gp_history.append(penalty.item())
