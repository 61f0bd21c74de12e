# Source: https://github.com/pytorch/pytorch/issues/17568
# Shape: the same VAE trainer splits each batch into micro-batches and sums their objectives into one tensor that is backwarded once after the inner loop (the sum IS the loss); the epoch's per-term totals are kept with .item(), so nothing attached outlives a batch.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorVAE(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_latent=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU())
        self.mu = nn.Linear(d_hidden, d_latent)
        self.logvar = nn.Linear(d_hidden, d_latent)
        self.dec = nn.Sequential(nn.Linear(d_latent, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_in))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


class VAETrainer:
    def __init__(self, vae, lr=1e-3, beta=1.0, micro_batches=4):
        self.vae = vae
        self.beta = beta
        self.micro_batches = micro_batches
        self.opt = torch.optim.Adam(vae.parameters(), lr=lr)

    def _terms(self, batch):
        recon, mu, logvar = self.vae(batch)
        rec = F.mse_loss(recon, batch, reduction="sum") / batch.size(0)
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / batch.size(0)
        return rec, kl

    def train_epoch(self, loader):
        self.vae.train()
        totals = {"rec": 0.0, "kl": 0.0}
        for batch in loader:
            self.opt.zero_grad()
            objective = 0.0
            for chunk in batch.chunk(self.micro_batches):
                rec, kl = self._terms(chunk)
                objective = objective + (rec + self.beta * kl) / self.micro_batches
                totals["rec"] += rec.item() / self.micro_batches
                totals["kl"] += kl.item() / self.micro_batches
            objective.backward()
            self.opt.step()
        return {name: value / len(loader) for name, value in totals.items()}

    def fit(self, loader, epochs=1):
        return [self.train_epoch(loader) for _ in range(epochs)]
