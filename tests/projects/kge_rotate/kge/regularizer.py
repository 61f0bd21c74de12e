"""Penalty on the gradient norm of the loss w.r.t. the entity embeddings (smoothness regulariser)."""
import torch


class EmbeddingGradPenalty:
    def __init__(self, weight=1e-3):
        self.weight = weight
        self.norm_history = []

    def __call__(self, loss, embedding):
        (g,) = torch.autograd.grad(loss, embedding, create_graph=True)
        gnorm = g.norm(dim=1)
        self.norm_history.append(gnorm.max())  # expect: TLK301
        return self.weight * gnorm.pow(2).mean()

    def stats(self):
        if not self.norm_history:
            return 0.0
        return float(torch.stack(self.norm_history).mean())
