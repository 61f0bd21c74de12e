# Source: https://github.com/rfeinman/pytorch-minimize/issues/29
# Shape: a trust-region minimizer's closure computes the gradient with torch.autograd.backward(create_graph=True) and returns x.grad for Hessian-vector products, never resetting x.grad; the next call accumulates onto a gradient that holds the previous graph (measured: the second iteration raises "modified by an inplace operation", the in-place update of x hitting the graph still held through x.grad; with x.grad = None after use, 0 B/iter)
# Verdict: leak
import torch


class Objective:
    def __init__(self, fun, x0):
        self.fun = fun
        self.x = x0.detach().clone().requires_grad_(True)

    def closure(self):
        f = self.fun(self.x)
        torch.autograd.backward(f, create_graph=True)  # TLK302
        grad = self.x.grad

        def hessp(v):
            return torch.autograd.grad(grad, self.x, grad_outputs=v, retain_graph=True)[0]

        return f.detach(), grad.detach(), hessp


def minimize(fun, x0, max_iter=100, radius=1.0):
    obj = Objective(fun, x0)
    for it in range(max_iter):
        f, g, hessp = obj.closure()
        p = -radius * g / g.norm()
        curvature = torch.dot(p, hessp(p))
        step = p if curvature <= 0 else p * min(1.0, (g.norm() ** 2 / curvature).item())
        with torch.no_grad():
            obj.x.add_(step)
        if g.norm() < 1e-6:
            break
    return obj.x.detach()
