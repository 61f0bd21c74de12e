# Source: https://github.com/atomistic-machine-learning/schnetpack/issues/279
# Shape: an atomistic output module derives forces with torch.autograd.grad and sets create_graph = self.create_graph if self.training else False; in training the force error enters the loss that is backwarded, and in the evaluation loop (which cannot use no_grad because forces need autograd) create_graph is False, so the forces collected in a list carry no graph and the energies are detached.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30


class Atomwise(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, R):
        d = (R.unsqueeze(1) - R.unsqueeze(2)).pow(2).sum(-1).add(1e-6).sqrt()
        return self.net(d.unsqueeze(-1)).sum(dim=(1, 2, 3))


class EnergyForces(nn.Module):
    def __init__(self, create_graph=True):
        super().__init__()
        self.representation = Atomwise()
        self.create_graph = create_graph

    def forward(self, inputs):
        R = inputs["R"].requires_grad_(True)
        energy = self.representation(R)
        create_graph = self.create_graph if self.training else False
        forces = -torch.autograd.grad(energy, R, grad_outputs=torch.ones_like(energy), create_graph=create_graph)[0]
        return {"energy": energy, "forces": forces}


def batches(n, natoms=12):
    for _ in range(n):
        R = torch.randn(4, natoms, 3)
        yield {"R": R, "energy": torch.randn(4), "forces": torch.randn(4, natoms, 3)}


model = EnergyForces()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
model.train()
for batch in batches(STEPS):
    out = model(batch)
    loss = 0.01 * F.mse_loss(out["energy"], batch["energy"]) + 0.99 * F.mse_loss(out["forces"], batch["forces"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

model.eval()
pred_forces, pred_energy = [], []
for batch in batches(STEPS):
    out = model(batch)
    pred_forces.append(out["forces"])
    pred_energy.append(out["energy"].detach())
print(torch.cat(pred_forces).shape, torch.cat(pred_energy).shape)
