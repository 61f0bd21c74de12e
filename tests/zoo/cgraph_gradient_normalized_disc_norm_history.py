# Source: https://github.com/basiclab/GNGAN-PyTorch/issues/2
# Shape: gradient-normalized discriminator computes the input-gradient norm with autograd.grad(create_graph=True); the trainer appends the mean norm (still attached to the double-backward graph) to a history list every step, so memory climbs steadily (measured: +16 KB per step on a small discriminator; 0 B with .item())
# Verdict: leak
import torch
from torch import autograd


def normalized_scores(net_D, x):
    x.requires_grad_(True)
    f = net_D(x).flatten(1)
    grad = autograd.grad(f.sum(), x, create_graph=True)[0]
    grad_norm = grad.flatten(1).norm(2, dim=1, keepdim=True)
    return f / (grad_norm + f.abs()), grad_norm


grad_norm_history = []
for step, (real, _) in enumerate(loader):
    fake = net_G(torch.randn(real.size(0), 128)).detach()
    pred_real, norm_real = normalized_scores(net_D, real)
    pred_fake, _ = normalized_scores(net_D, fake)
    loss_D = torch.nn.functional.softplus(-pred_real).mean() + torch.nn.functional.softplus(pred_fake).mean()
    optim_D.zero_grad()
    loss_D.backward()
    optim_D.step()
    grad_norm_history.append(norm_real.mean())  # TLK301
