# Source: https://github.com/pytorch/pytorch/issues/2498
# Shape: per-batch Hessian-vector products for curvature tracking; the second autograd.grad also passes create_graph=True although nothing differentiates it again, and the resulting curvature tensor is appended to a list, keeping both graphs of every batch (measured: +435 KB per batch; without create_graph on the second call, 4 B)
# Verdict: leak
import torch
import torch.nn.functional as F

params = [p for p in net.parameters() if p.requires_grad]
probes = [torch.randn_like(p) for p in params]
curvature = []
for images, labels in loader:
    loss = F.nll_loss(net(images), labels)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    inner = sum(torch.sum(g * v) for g, v in zip(grads, probes))
    hv = torch.autograd.grad(inner, params, create_graph=True)
    rayleigh = sum(torch.sum(h * v) for h, v in zip(hv, probes)) / sum(torch.sum(v * v) for v in probes)
    curvature.append(rayleigh)  # TLK301
    if len(curvature) == 30:
        break
