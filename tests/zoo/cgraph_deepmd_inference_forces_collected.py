# Source: https://github.com/deepmodeling/deepmd-kit/pull/4006
# Shape: a DeePMD-style potential computes forces in its forward as the negative gradient of the energy with torch.autograd.grad(create_graph=True) unconditionally, so even at inference every returned force tensor carries a double-backward graph; a "dp test"-style loop over frames collects the forces in a list, keeping one force graph per frame alive. The PR stopped building the force graph during inference.
# Verdict: leak
import torch
import torch.nn as nn

STEPS = 100


def take_deriv(energy, coord, create_graph=True):
    grad = torch.autograd.grad([energy.sum()], [coord], create_graph=create_graph)[0]
    return -grad


class PairPotential(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.fitting = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, coord):
        coord = coord.requires_grad_(True)
        diff = coord.unsqueeze(1) - coord.unsqueeze(0)
        dist = (diff.pow(2).sum(-1) + 1e-6).sqrt()
        atomic = self.fitting(dist.unsqueeze(-1)).sum(dim=(1, 2))
        energy = atomic.sum()
        force = take_deriv(energy, coord, create_graph=True)
        return {"energy": energy, "force": force}


def frames(n, natoms=24):
    for _ in range(n):
        yield torch.randn(natoms, 3) * 2.0


def dp_test(model, system):
    model.eval()
    energies, forces = [], []
    for coord in system:
        out = model(coord)
        energies.append(out["energy"].item())
        forces.append(out["force"])  # TLK301
    return energies, torch.stack(forces)


model = PairPotential()
energies, forces = dp_test(model, frames(STEPS))
print(len(energies), forces.shape)
