# Source: https://github.com/HiroIshida/mohou/pull/112
# Shape: the epoch accumulator adds value.item() into float sums, so only numbers cross batches; the summed LossDict tensor is attached but backwarded in the same step.
# Verdict: clean
from dataclasses import dataclass, field
from typing import Dict

import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN_CONFIG = {"image_size": 8, "n_channel": 3, "latent": 6, "batch": 4, "lr": 1e-3, "kld_weight": 0.01}

LossDict = Dict[str, torch.Tensor]


class VariationalAutoEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["n_channel"] * cfg["image_size"] ** 2
        self.cfg = cfg
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 2 * cfg["latent"]))
        self.decoder = nn.Sequential(nn.Linear(cfg["latent"], 32), nn.ReLU(), nn.Linear(32, d), nn.Sigmoid())

    def loss(self, images) -> LossDict:
        mu, logvar = self.encoder(images).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        recon = self.decoder(z).view_as(images)
        rec_loss = F.mse_loss(recon, images)
        kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        return {"reconstruction": rec_loss, "kld": self.cfg["kld_weight"] * kld}


def total(loss_dict: LossDict) -> torch.Tensor:
    return sum(loss_dict.values())


@dataclass
class EpochAccumulator:
    sums: Dict[str, torch.Tensor] = field(default_factory=dict)
    n_batch: int = 0

    def add(self, loss_dict: LossDict):
        for key, value in loss_dict.items():
            if key not in self.sums:
                self.sums[key] = 0.0
            self.sums[key] = self.sums[key] + value.item()
        self.n_batch += 1

    def mean(self) -> Dict[str, float]:
        return {k: float(v) / max(self.n_batch, 1) for k, v in self.sums.items()}


@dataclass
class TrainCache:
    train_loss_dict_seq: list = field(default_factory=list)
    best_loss: float = float("inf")

    def on_epoch_end(self, acc: EpochAccumulator):
        means = acc.mean()
        self.train_loss_dict_seq.append(means)
        self.best_loss = min(self.best_loss, sum(means.values()))


def train_once(model, optimizer, loader, cache):
    model.train()
    acc = EpochAccumulator()
    for images in loader:
        optimizer.zero_grad()
        loss_dict = model.loss(images)
        total(loss_dict).backward()
        optimizer.step()
        acc.add(loss_dict)
    cache.on_epoch_end(acc)


def make_batches(n):
    c = TRAIN_CONFIG
    return [torch.rand(c["batch"], c["n_channel"], c["image_size"], c["image_size"]) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = VariationalAutoEncoder(TRAIN_CONFIG)
    optimizer = torch.optim.Adam(model.parameters(), lr=TRAIN_CONFIG["lr"])
    train_once(model, optimizer, batches, TrainCache())
