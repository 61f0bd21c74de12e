# Source: https://github.com/pytorch/pytorch/issues/78622
# Shape: the hand-written truncated Newton (conjugate-gradient) optimizer takes its gradient with torch.autograd.grad(loss, params, create_graph=True), as the warning in the report recommends: the differentiable gradients live in a local list used for the Hessian-vector products and are dropped after the step; no .grad field ever holds a graph.
# Verdict: clean
import torch
import torch.nn as nn


class NewtonCG:
    def __init__(self, params, cg_iters=10, damping=1e-3, max_step=1.0):
        self.params = [p for p in params if p.requires_grad]
        self.cg_iters = cg_iters
        self.damping = damping
        self.max_step = max_step

    def _hvp(self, grads, vec):
        hv = torch.autograd.grad(grads, self.params, grad_outputs=vec, retain_graph=True)
        return [h + self.damping * v for h, v in zip(hv, vec)]

    def _dot(self, a, b):
        return sum((x * y).sum() for x, y in zip(a, b))

    def step(self, closure):
        loss = closure()
        grads = torch.autograd.grad(loss, self.params, create_graph=True)
        residual = [-g.detach() for g in grads]
        direction = [r.clone() for r in residual]
        solution = [torch.zeros_like(r) for r in residual]
        rr = self._dot(residual, residual)
        for _ in range(self.cg_iters):
            hd = self._hvp(grads, direction)
            alpha = rr / self._dot(direction, hd).clamp_min(1e-12)
            solution = [s + alpha * d for s, d in zip(solution, direction)]
            residual = [r - alpha * h for r, h in zip(residual, hd)]
            rr_new = self._dot(residual, residual)
            direction = [r + (rr_new / rr) * d for r, d in zip(residual, direction)]
            rr = rr_new
        norm = self._dot(solution, solution).sqrt()
        scale = min(1.0, self.max_step / (float(norm) + 1e-12))
        for p, s in zip(self.params, solution):
            p.data.add_(s, alpha=scale)
        return loss.detach()


def fit(model: nn.Module, loader, epochs=3):
    criterion = nn.MSELoss()
    optimizer = NewtonCG(model.parameters())
    for epoch in range(epochs):
        for inputs, targets in loader:
            optimizer.step(lambda: criterion(model(inputs), targets))
