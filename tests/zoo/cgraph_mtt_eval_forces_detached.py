# Source: https://github.com/metatensor/metatrain/issues/702
# Shape: the atomistic evaluation with the fix applied: evaluate_model builds the force graph only when training (create_graph=is_training), the eval loop asks for is_training=False, and the predictions kept for writing are detached, so no batch's graph outlives its iteration.
# Verdict: clean
from dataclasses import dataclass
from typing import Dict, List

import torch
import torch.nn as nn


@dataclass
class System:
    positions: torch.Tensor
    species: torch.Tensor


class PairEnergyModel(nn.Module):
    def __init__(self, n_species=4, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(n_species, hidden)
        self.radial = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.readout = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, system: System):
        r = torch.cdist(system.positions, system.positions).unsqueeze(-1)
        pair = self.radial(torch.exp(-r)) * self.embed(system.species).unsqueeze(0)
        return self.readout(pair.sum(dim=1)).sum()


def evaluate_model(model, systems: List[System], is_training: bool):
    for s in systems:
        s.positions.requires_grad_(True)
    energies = torch.stack([model(s) for s in systems])
    positions = [s.positions for s in systems]
    gradients = torch.autograd.grad(energies.sum(), positions, create_graph=is_training)
    forces = [-g for g in gradients]
    return energies, forces


def mtt_eval(model, dataloader) -> Dict[str, list]:
    model.eval()
    predictions: Dict[str, list] = {"energy": [], "forces": []}
    for systems in dataloader:
        energies, forces = evaluate_model(model, systems, is_training=False)
        predictions["energy"].append(energies.detach())
        predictions["forces"].extend(f.detach() for f in forces)
    return predictions
