# Source: https://github.com/alexhernandezgarcia/gflownet/pull/133
# Shape: a trainer keeps an exponential moving average of the batch feature mean on self, updated from the attached features in a method called once per batch; each update links the average to every earlier batch's graph (measured: +7 KB heap per step when the features are backwarded, +147 KB per step of tensors when they are not)
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class CenteredContrastiveTrainer:
    def __init__(self, encoder, dim=256, momentum=0.99):
        self.encoder = encoder
        self.momentum = momentum
        self.feature_mean = torch.zeros(dim)
        self.opt = torch.optim.SGD(encoder.parameters(), lr=0.05, momentum=0.9)

    def train_step(self, view_a, view_b):
        za = self.encoder(view_a)
        zb = self.encoder(view_b)
        batch_mean = torch.cat([za, zb]).mean(dim=0)
        self.feature_mean = self.momentum * self.feature_mean + (1 - self.momentum) * batch_mean  # TLK103
        loss = -F.cosine_similarity(za, zb, dim=-1).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = CenteredContrastiveTrainer(nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 256)))
for epoch in range(100):
    for view_a, view_b in pair_loader:
        trainer.train_step(view_a, view_b)
