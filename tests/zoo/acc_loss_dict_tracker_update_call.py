# Source: https://github.com/Exscientia/physicsml/pull/18
# Shape: a molecular-property model's compute_loss returns a dict of loss terms whose "loss" entry is backwarded; a LossTracker class defined in the file adds every entry of the dict it is given, times the batch size, into per-name sums, and the loop hands it the raw dict every step, so each running sum chains every batch's graph.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class LossTracker:
    def __init__(self):
        self.sums = {}
        self.count = 0

    def update(self, loss_dict, n):
        for name, value in loss_dict.items():
            self.sums[name] = self.sums.get(name, 0.0) + value * n  # TLK101
        self.count += n

    def averages(self):
        return {name: float(total) / max(self.count, 1) for name, total in self.sums.items()}


class PropertyModel(nn.Module):
    def __init__(self, in_dim=128, hidden=256, dipole_weight=0.1):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.energy_head = nn.Linear(hidden, 1)
        self.dipole_head = nn.Linear(hidden, 3)
        self.dipole_weight = dipole_weight

    def compute_loss(self, batch):
        h = self.body(batch["features"])
        energy_loss = F.mse_loss(self.energy_head(h).squeeze(-1), batch["energy"])
        dipole_loss = F.mse_loss(self.dipole_head(h), batch["dipole"])
        return {"loss": energy_loss + self.dipole_weight * dipole_loss, "energy_loss": energy_loss,
                "dipole_loss": dipole_loss}


def train(model: PropertyModel, loader, epochs, lr=1e-3):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        tracker = LossTracker()
        model.train()
        for batch in loader:
            loss_dict = model.compute_loss(batch)
            optimizer.zero_grad()
            loss_dict["loss"].backward()
            optimizer.step()
            tracker.update(loss_dict, batch["energy"].shape[0])
        print(f"epoch {epoch}", tracker.averages())
