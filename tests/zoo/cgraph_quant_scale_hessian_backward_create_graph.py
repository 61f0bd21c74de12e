# Source: https://github.com/cvlab-yonsei/EWGS/issues/7
# Shape: before quantization-aware training, a helper estimates each quantizer's gradient scale from the Hessian trace (Hutchinson) over a few batches; it calls loss.backward(create_graph=True) and differentiates the resulting .grad of each quantizer interval again, but never resets the gradients, so each interval's .grad keeps the first batch's double-backward graph and the second batch's Hessian-vector product, which goes back through it, raises "Trying to backward through the graph a second time".
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class EWGSQuantConv(nn.Conv2d):
    def __init__(self, *args, bits=4, **kwargs):
        super().__init__(*args, **kwargs)
        self.levels = 2 ** bits - 1
        self.lower = nn.Parameter(torch.tensor(-1.0))
        self.upper = nn.Parameter(torch.tensor(1.0))
        self.register_buffer("grad_scale", torch.tensor(0.0))

    def quantize(self, w):
        interval = self.upper - self.lower
        normed = ((w - self.lower) / interval).clamp(0, 1)
        hard = torch.round(normed * self.levels) / self.levels
        soft = normed + (hard - normed).detach()
        return soft * interval + self.lower

    def forward(self, x):
        return F.conv2d(x, self.quantize(self.weight), self.bias, self.stride, self.padding)


def build_net(width=8, classes=10):
    return nn.Sequential(EWGSQuantConv(3, width, 3, padding=1), nn.ReLU(), EWGSQuantConv(width, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, classes))


def update_grad_scales(net, loader, crit, num_batches=4):
    quant_layers = [m for m in net.modules() if isinstance(m, EWGSQuantConv)]
    intervals = [p for m in quant_layers for p in (m.lower, m.upper)]
    traces = [0.0] * len(quant_layers)
    for batch_idx, (images, labels) in enumerate(loader):
        if batch_idx == num_batches:
            break
        objective = crit(net(images), labels)
        objective.backward(create_graph=True)  # TLK302
        first_grads = [p.grad for p in intervals]
        probes = [torch.randint_like(g, 2) * 2 - 1 for g in first_grads]
        hv = torch.autograd.grad(first_grads, intervals, grad_outputs=probes, retain_graph=False)
        for i in range(len(quant_layers)):
            traces[i] += (hv[2 * i] * probes[2 * i] + hv[2 * i + 1] * probes[2 * i + 1]).abs().item()
    for layer, trace in zip(quant_layers, traces):
        layer.grad_scale.fill_(trace / num_batches)
    return traces
