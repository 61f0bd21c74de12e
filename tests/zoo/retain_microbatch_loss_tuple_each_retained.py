# Source: https://github.com/mosaicml/composer/pull/1240
# Shape: a trainer's microbatch step supports models that return a tuple of losses by backwarding each loss through the GradScaler with retain_graph=True (the losses share the forward graph, so all but the last need it); the last loss retains too, and nothing backwards through that graph again, so the whole forward graph of each microbatch stays alive through the next microbatch's forward (until losses is rebound).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadNet(nn.Module):
    def __init__(self, d_in=32, hidden=128, n_classes=10):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.cls = nn.Linear(hidden, n_classes)
        self.rec = nn.Linear(hidden, d_in)

    def loss(self, batch):
        x, y = batch
        h = self.trunk(x)
        return F.cross_entropy(self.cls(h), y), 0.1 * F.mse_loss(self.rec(h), x)


class Trainer:
    def __init__(self, model, grad_accum=4, lr=1e-3, use_amp=False):
        self.model = model
        self.grad_accum = grad_accum
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cpu", enabled=use_amp)

    def train_batch(self, microbatches):
        self.optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for microbatch in microbatches:
            with torch.autocast("cpu", enabled=self.scaler.is_enabled()):
                losses = self.model.loss(microbatch)
            for loss in losses:
                self.scaler.scale(loss / self.grad_accum).backward(retain_graph=True)  # TLK201
            total += sum(loss.item() for loss in losses)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return total / len(microbatches)

    def fit(self, batches, epochs=1):
        for epoch in range(epochs):
            for microbatches in batches:
                self.train_batch(microbatches)
