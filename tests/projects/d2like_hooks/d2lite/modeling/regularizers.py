"""Input-gradient penalty (double backprop), used as an extra loss term."""
import torch


class InputGradientPenalty:
    def __init__(self, weight=0.01):
        self.weight = weight
        self.grad_norm_history = []

    def __call__(self, loss, images):
        (grad,) = torch.autograd.grad(loss, images, create_graph=True)
        grad_norm = grad.flatten(1).norm(dim=1).mean()
        self.grad_norm_history.append(grad_norm)  # expect: TLK301
        return self.weight * grad.pow(2).flatten(1).sum(1).mean()

    def summary(self):
        h = self.grad_norm_history
        return {"mean_input_grad_norm": float(sum(float(x) for x in h) / max(len(h), 1))}
