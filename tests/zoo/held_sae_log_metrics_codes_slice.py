# Source: https://github.com/KempnerInstitute/overcomplete/issues/5
# Shape: a sparse-autoencoder training loop calls a _log_metrics helper every step; at monitoring level 2 it appends a slice of the codes z to logs['z'] without detaching, so the list (a dict of lists kept for the whole run) holds every step's encoder graph; the other entries are .item() floats.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn


def l2(x, dims=-1):
    return x.pow(2).sum(dims).sqrt()


def l0_eps(x, eps=1e-6):
    return (x.abs() > eps).float().sum(-1)


def _log_metrics(monitoring, logs, sae, z, objective):
    logs["loss"].append(objective.item())
    if monitoring > 1:
        logs["z"].append(z[::10])  # TLK102
        logs["z_l2"].append(l2(z).mean().item())
        logs["dictionary_sparsity"].append(l0_eps(sae.dictionary).mean().item())
        for name, param in sae.named_parameters():
            if param.grad is not None:
                logs[f"grad_norm_{name}"].append(l2(param.grad, None).item())


class SparseAutoencoder(nn.Module):
    def __init__(self, d_in=64, n_concepts=256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, n_concepts), nn.ReLU())
        self.dictionary = nn.Parameter(torch.randn(n_concepts, d_in) * 0.1)

    def forward(self, x):
        z = self.encoder(x)
        return z, z @ self.dictionary


def train_sae(sae, dataloader, optimizer, nb_epochs=10, monitoring=2, sparsity=1e-3):
    logs = defaultdict(list)
    for epoch in range(nb_epochs):
        for batch in dataloader:
            optimizer.zero_grad()
            z, x_hat = sae(batch)
            objective = (batch - x_hat).square().mean() + sparsity * z.abs().mean()
            objective.backward()
            optimizer.step()
            if monitoring:
                _log_metrics(monitoring, logs, sae, z, objective)
    return logs
