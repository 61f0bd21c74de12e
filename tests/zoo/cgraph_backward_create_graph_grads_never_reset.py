# Source: https://github.com/pytorch/pytorch/issues/16744
# Shape: hand-written gradient-norm-regularized descent calls loss.backward(create_graph=True) every step and never resets p.grad, updating weights under no_grad; each step's .grad accumulates on top of the last one and chains its graph (measured: +98 KB per step, unbounded)
# Verdict: leak
import torch
import torch.nn.functional as F

lr, beta = 1e-2, 1e-3
params = list(net.parameters())
for step, (x, y) in enumerate(loader):
    loss = F.mse_loss(net(x), y)
    loss.backward(create_graph=True)  # TLK302
    grad_sq = sum((p.grad ** 2).sum() for p in params)
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    if step % 100 == 0:
        print(step, loss.item(), grad_sq.item())
