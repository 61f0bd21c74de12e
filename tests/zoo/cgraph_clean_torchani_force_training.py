# Source: https://github.com/aiqm/torchani/pull/238
# Shape: force training needs forces = -autograd.grad(energies, coordinates, create_graph=True) inside the loss; the create_graph result is consumed by the loss in the same step and only .item() values are kept.
# Verdict: clean
import math
import random

import torch
import torch.nn as nn

N_CONF = 40
N_ATOMS = 5
SPECIES = 3


class AEVComputer(nn.Module):
    def __init__(self, Rcr=5.2, n_shifts=16):
        super().__init__()
        self.Rcr = Rcr
        self.register_buffer("ShfR", torch.linspace(0.9, Rcr, n_shifts))
        self.EtaR = 16.0

    def forward(self, species_coordinates):
        species, coordinates = species_coordinates
        d = (coordinates.unsqueeze(2) - coordinates.unsqueeze(1)).pow(2).sum(-1).add(1e-8).sqrt()
        fc = 0.5 * torch.cos(math.pi * d / self.Rcr) + 0.5
        fc = fc * (d < self.Rcr).float() * (1 - torch.eye(d.size(-1)))
        radial = 0.25 * torch.exp(-self.EtaR * (d.unsqueeze(-1) - self.ShfR) ** 2) * fc.unsqueeze(-1)
        return species, radial.sum(2)


class ANIModel(nn.Module):
    def __init__(self, aev_dim=16):
        super().__init__()
        self.nets = nn.ModuleList(nn.Sequential(nn.Linear(aev_dim, 48), nn.CELU(0.1), nn.Linear(48, 24),
                                                nn.CELU(0.1), nn.Linear(24, 1)) for _ in range(SPECIES))

    def forward(self, species_aev):
        species, aev = species_aev
        out = torch.zeros(species.shape)
        for i, net in enumerate(self.nets):
            mask = species == i
            out = out + torch.where(mask, net(aev).squeeze(-1), torch.zeros_like(out))
        return species, out.sum(1)


def make_batches(n):
    rng = random.Random(0)
    return [rng.sample(range(N_CONF), 4) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(29)
    species_all = torch.randint(0, SPECIES, (N_CONF, N_ATOMS), generator=g)
    coords_all = torch.randn(N_CONF, N_ATOMS, 3, generator=g) * 1.2
    energies_all = torch.randn(N_CONF, generator=g)
    forces_all = torch.randn(N_CONF, N_ATOMS, 3, generator=g)

    aev_computer = AEVComputer()
    nn_model = ANIModel()
    model = nn.Sequential(aev_computer, nn_model)
    optimizer = torch.optim.AdamW(nn_model.parameters(), lr=1e-3, weight_decay=1e-5)
    mse = nn.MSELoss(reduction="none")
    force_coefficient = 0.1

    history = {"energy_rmse": [], "force_rmse": []}
    for idx in batches:
        species = species_all[idx]
        coordinates = coords_all[idx].clone().requires_grad_(True)
        true_energies, true_forces = energies_all[idx], forces_all[idx]
        num_atoms = (species >= 0).sum(dim=1, dtype=true_energies.dtype)

        _, predicted_energies = model((species, coordinates))
        forces = -torch.autograd.grad(predicted_energies.sum(), coordinates, create_graph=True, retain_graph=True)[0]

        energy_loss = (mse(predicted_energies, true_energies) / num_atoms.sqrt()).mean()
        force_loss = (mse(true_forces, forces).sum(dim=(1, 2)) / num_atoms).mean()
        loss = energy_loss + force_coefficient * force_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        history["energy_rmse"].append(math.sqrt(energy_loss.item()))
        history["force_rmse"].append(math.sqrt(force_loss.item()))
    return history
