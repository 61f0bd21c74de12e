# Source: https://github.com/caogang/wgan-gp/issues/21
# Shape: WGAN-GP training keeps the gradient penalty tensor (built from autograd.grad(create_graph=True)) in a history list for plotting; every entry pins that step's double-backward graph (measured: +16 KB per step on a small critic, never freed)
# Verdict: leak
import torch
from torch import autograd

gp_history = []
d_cost_history = []
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
    gp_history.append(penalty)  # TLK301
    d_cost_history.append(d_cost.item())
