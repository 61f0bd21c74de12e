# Source: https://github.com/rdevon/DIM/blob/master/cortex_DIM/functions/gradient_penalty.py
# Shape: fixed twin: GradNormMonitor.update() keeps grad_norm.detach(), so the monitor holds a plain scalar and no double-backward graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd

N_FEATURES = 32
BATCH = 64

_GEN = torch.Generator().manual_seed(123)
X_TRAIN = torch.randn(512, N_FEATURES, generator=_GEN)
Y_TRAIN = (X_TRAIN[:, :4].sum(dim=1) + 0.3 * torch.randn(512, generator=_GEN) > 0).long()


def _get_gradient(inp, output):
    gradient = autograd.grad(outputs=output, inputs=inp,
                             grad_outputs=torch.ones_like(output),
                             create_graph=True, retain_graph=True,
                             only_inputs=True, allow_unused=True)[0]
    return gradient


def contrastive_gradient_penalty(network, input, penalty_amount=1.):
    """Gradient penalty (Mescheder et al. 2018) on the network's input; also returns the gradient."""
    input = input.detach().requires_grad_()
    with torch.set_grad_enabled(True):
        output = network(input)
    gradient = _get_gradient(input, output.logsumexp(dim=1))
    gradient = gradient.view(gradient.size()[0], -1)
    penalty = (gradient ** 2).sum(1).mean()
    return penalty * penalty_amount, gradient


class GradNormMonitor:
    """Keeps per-step input-gradient norms for the TensorBoard-like writer."""

    def __init__(self, writer=None, log_every=50):
        self.writer = writer
        self.log_every = log_every
        self.history = []

    def update(self, step, gradient):
        grad_norm = gradient.norm(2, dim=1).mean()
        self.history.append(grad_norm.detach())
        if self.writer is not None and step % self.log_every == 0:
            self.writer.add_scalar("grad/input_norm", float(grad_norm), step)


class ScalarWriter:
    def __init__(self):
        self.scalars = []

    def add_scalar(self, tag, value, step):
        self.scalars.append((tag, value, step))


class SmoothClassifier(nn.Module):
    def __init__(self, n_in, hidden=64, n_classes=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.Softplus(),
                                 nn.Linear(hidden, hidden), nn.Softplus(),
                                 nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, penalty_amount=0.1, lr=1e-3):
        self.model = model
        self.penalty_amount = penalty_amount
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.writer = ScalarWriter()
        self.monitor = GradNormMonitor(self.writer)

    def train_step(self, step, x, y):
        self.optimizer.zero_grad()
        ce = F.cross_entropy(self.model(x), y)
        penalty, gradient = contrastive_gradient_penalty(self.model, x, self.penalty_amount)
        loss = ce + penalty
        loss.backward()
        self.optimizer.step()
        self.monitor.update(step, gradient)
        return ce.item(), penalty.item()


def make_batches(n):
    torch.manual_seed(0)
    return [list(range((i * BATCH) % 512, (i * BATCH) % 512 + BATCH)) for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    trainer = Trainer(SmoothClassifier(N_FEATURES))
    for step, idx in enumerate(batches):
        trainer.train_step(step, X_TRAIN[idx], Y_TRAIN[idx])
    return trainer
