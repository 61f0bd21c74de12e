"""Gradient penalty on the domain discriminator (keeps it Lipschitz-smooth, as in WDGRL)."""
import torch


class DiscriminatorGradPenalty:
    def __init__(self, weight=1.0):
        self.weight = weight
        self.norm_trace = []

    def __call__(self, domain_adv, f_s, f_t):
        alpha = torch.rand(f_s.size(0), 1)
        inter = (alpha * f_s.detach() + (1 - alpha) * f_t.detach()).requires_grad_(True)
        out = domain_adv.discriminate(inter)
        grads, = torch.autograd.grad(out.sum(), inter, create_graph=True)
        grad_norm = grads.norm(2, dim=1)
        self.norm_trace.append(grad_norm.mean())  # expect: TLK301
        return self.weight * ((grad_norm - 1) ** 2).mean()

    def last_norm(self):
        return float(self.norm_trace[-1]) if self.norm_trace else float("nan")
