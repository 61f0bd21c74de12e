# Source: https://github.com/ItzikMalkiel/MTAdam/issues/2
# Shape: an MTAdam-style multi-term optimizer receives the list of loss terms from the training loop and, inside step(), backwards each term in turn with loss.backward(retain_graph=True) to balance their gradient magnitudes; the last term retains the shared forward graph too, so its saved activations stay alive (held by the loss variables of the training loop) into the next step's forward pass, raising the peak by one graph.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


class MTAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999, 0.9), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @torch.no_grad()
    def step(self, loss_array, ranks):
        self.update_weights(loss_array, ranks)

    def update_weights(self, loss_array, ranks):
        for loss_index, loss in enumerate(loss_array):
            loss.backward(retain_graph=True)  # TLK201
            for group in self.param_groups:
                beta1, beta2, beta3 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 1
                        state["norms"] = [torch.ones(()) for _ in loss_array]
                        for j in range(len(loss_array)):
                            state["exp_avg" + str(j)] = torch.zeros_like(p)
                            state["exp_avg_sq" + str(j)] = torch.zeros_like(p)
                    norms = state["norms"]
                    norms[loss_index] = norms[loss_index] * beta3 + (1 - beta3) * torch.norm(p.grad)
                    grad = ranks[loss_index] * norms[0] * p.grad / norms[loss_index].clamp_min(1e-10)
                    exp_avg, exp_avg_sq = state["exp_avg" + str(loss_index)], state["exp_avg_sq" + str(loss_index)]
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    p.grad.detach_()
                    p.grad.zero_()
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                t = state["step"]
                update = torch.zeros_like(p)
                for j in range(len(loss_array)):
                    denom = (state["exp_avg_sq" + str(j)] / (1 - 0.999 ** t)).sqrt().add_(group["eps"])
                    update += state["exp_avg" + str(j)] / (1 - 0.9 ** t) / denom
                p.add_(update, alpha=-group["lr"])
                state["step"] += 1


class AutoEncoder(nn.Module):
    def __init__(self, dim=128, hidden=512, depth=6):
        super().__init__()
        layers = [nn.Linear(dim, hidden), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.Tanh()]
        self.encoder = nn.Sequential(*layers)
        self.decoder = nn.Linear(hidden, dim)
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):
        h = self.encoder(x)
        return self.decoder(h), self.classifier(h)


def train(model, loader, epochs=1):
    optimizer = MTAdam(model.parameters(), lr=1e-3)
    ranks = [1.0, 0.5, 0.1]
    for epoch in range(epochs):
        for x, y in loader:
            recon, logits = model(x)
            loss_rec = F.mse_loss(recon, x)
            loss_cls = F.cross_entropy(logits, y)
            loss_logit = logits.pow(2).mean()
            optimizer.step([loss_rec, loss_cls, loss_logit], ranks)
            print(epoch, loss_rec.item(), loss_cls.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = [(torch.randn(2048, 128), torch.randint(0, 10, (2048,))) for _ in range(6)]
    train(AutoEncoder(), loader)
