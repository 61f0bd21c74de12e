# Source: https://github.com/jettify/pytorch-optimizer/issues/358
# Shape: AdaHessian as packaged: the loop zeroes the gradients, calls loss.backward(create_graph=True) and optimizer.step(); the step detaches every p.grad in place while folding it into its running averages (so the create_graph parameter/gradient cycle is broken every step), but get_trace() takes its Hutchinson product with autograd.grad(grads, params, grad_outputs=v, retain_graph=True) and nothing backwards through that graph again, so its buffers stay alive into the next iteration until the loss is replaced (measured: about 0.9 MB more alive at the top of the loop, peak raised, no growth).
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


class Adahessian(Optimizer):
    def __init__(self, params, lr=0.15, betas=(0.9, 0.999), eps=1e-4, weight_decay=0.0, hessian_power=0.5):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, hessian_power=hessian_power))

    def get_trace(self, params, grads):
        for i, grad in enumerate(grads):
            if grad.grad_fn is None:
                raise RuntimeError(f"Gradient tensor {i} does not have grad_fn; call backward(create_graph=True)")
        v = [2 * torch.randint_like(p, high=2) - 1 for p in params]
        hvs = torch.autograd.grad(grads, params, grad_outputs=v, only_inputs=True, retain_graph=True)  # TLK201
        return [hv.abs() if hv.dim() <= 2 else torch.mean(hv.abs(), dim=[2, 3], keepdim=True) for hv in hvs]

    def step(self, closure=None):
        params, groups, grads = [], [], []
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    params.append(p)
                    groups.append(group)
                    grads.append(p.grad)
        hut_traces = self.get_trace(params, grads)
        for p, group, grad, hut_trace in zip(params, groups, grads, hut_traces):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p.data)
                state["exp_hessian_diag_sq"] = torch.zeros_like(p.data)
            exp_avg, exp_hessian_diag_sq = state["exp_avg"], state["exp_hessian_diag_sq"]
            beta1, beta2 = group["betas"]
            state["step"] += 1
            exp_avg.mul_(beta1).add_(grad.detach_(), alpha=1 - beta1)
            exp_hessian_diag_sq.mul_(beta2).addcmul_(hut_trace, hut_trace, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** state["step"]
            bias_correction2 = 1 - beta2 ** state["step"]
            k = group["hessian_power"]
            denom = ((exp_hessian_diag_sq.sqrt() ** k) / math.sqrt(bias_correction2) ** k).add_(group["eps"])
            p.data = p.data - group["lr"] * (exp_avg / bias_correction1 / denom + group["weight_decay"] * p.data)


def train(model, loader, epochs=2):
    optimizer = Adahessian(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward(create_graph=True)
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(16 * 14 * 14, 10))
    loader = [(torch.randn(64, 1, 14, 14), torch.randint(0, 10, (64,))) for _ in range(20)]
    train(model, loader)
