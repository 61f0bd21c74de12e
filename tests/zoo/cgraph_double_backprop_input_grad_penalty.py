# Source: https://github.com/pytorch/pytorch/issues/4661
# Shape: loss.backward(create_graph=True) gives the input x a .grad whose double-backward graph saves x itself (x -> x.grad -> grad_fn -> x), a C++ reference cycle gc cannot break, so every step's input and its gradient graph stay alive.
# Verdict: leak
"""Double-backprop regularisation (penalise d loss / d input) for a small classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F

IN, HID, CLASSES, BATCH, LAMBDA = 8, 16, 3, 12, 0.1


class DoubleBackpropTrainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = []

    def train_step(self, x, y):
        self.opt.zero_grad()
        x = x.clone().requires_grad_(True)
        loss = F.cross_entropy(self.model(x), y)
        loss.backward(create_graph=True)  # TLK302
        grad_x = x.grad
        penalty = LAMBDA * grad_x.pow(2).sum(1).mean()
        penalty.backward()
        self.opt.step()
        self.history.append((loss.item(), penalty.item()))


def make_batches(n):
    g = torch.Generator().manual_seed(11)
    return [(torch.randn(BATCH, IN, generator=g), torch.randint(0, CLASSES, (BATCH,), generator=g))
            for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HID), nn.Tanh(), nn.Linear(HID, CLASSES))
    trainer = DoubleBackpropTrainer(model)
    for x, y in batches:
        trainer.train_step(x, y)
    return trainer.history[-1]


if __name__ == "__main__":
    print(run(make_batches(20)))
