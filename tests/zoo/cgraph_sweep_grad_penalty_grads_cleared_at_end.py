# Source: https://github.com/kach/gradient-descent-the-ultimate-optimizer/pull/1
# Shape: the fix from the pull request: the trainer's begin() clears the grads before each step and end() sets every grad to None once the run is over, so the parameter/gradient cycle made by backward(create_graph=True) is broken after the last step as well.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradPenaltyTrainer:
    def __init__(self, model: nn.Module, lr=0.1, penalty=0.01):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.penalty = penalty

    def begin(self):
        self.opt.zero_grad(set_to_none=True)

    def end(self):
        for p in self.model.parameters():
            p.grad = None

    def fit(self, loader, epochs=1):
        last = None
        for _ in range(epochs):
            for xb, yb in loader:
                self.begin()
                ce = F.cross_entropy(self.model(xb), yb)
                ce.backward(create_graph=True)
                sq_norm = sum(p.grad.pow(2).sum() for p in self.model.parameters())
                (self.penalty * sq_norm).backward()
                self.opt.step()
                last = ce.item()
        self.end()
        return last


def lr_sweep(build_model, train_loader, learning_rates=(0.3, 0.1, 0.03)):
    scores = {}
    for lr in learning_rates:
        trainer = GradPenaltyTrainer(build_model(), lr=lr)
        scores[lr] = trainer.fit(train_loader)
    return scores
