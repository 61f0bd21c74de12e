# Source: https://docs.pytorch.org/docs/stable/generated/torch.autograd.backward.html
# Shape: forces are read from positions.grad after energy.sum().backward(create_graph=True); each batch's fresh positions leaf then owns a .grad whose double-backward graph leads back to the leaf's AccumulateGrad node, a reference cycle through autograd's C++ objects that Python's gc cannot break, so every step's leaf, its .grad and that graph stay alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

N_ATOMS = 24
N_CONF = 16
HIDDEN = 64


class PairEnergy(nn.Module):
    """Toy machine-learned potential: per-atom energies from radial pair features."""

    def __init__(self, n_rbf=32, hidden=HIDDEN):
        super().__init__()
        self.centers = nn.Parameter(torch.linspace(0.5, 4.0, n_rbf), requires_grad=False)
        self.net = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, pos):
        # pos: (conf, atoms, 3)
        diff = pos.unsqueeze(2) - pos.unsqueeze(1)
        dist = (diff.pow(2).sum(-1) + 1e-6).sqrt()
        rbf = torch.exp(-4.0 * (dist.unsqueeze(-1) - self.centers) ** 2)
        atom_feat = rbf.sum(2)  # (conf, atoms, n_rbf)
        return self.net(atom_feat).squeeze(-1).sum(-1)  # (conf,)


def reference_energy_forces(pos):
    """Lennard-Jones-ish labels computed analytically-by-autograd (no graph kept)."""
    pos = pos.detach().requires_grad_(True)
    diff = pos.unsqueeze(2) - pos.unsqueeze(1)
    r2 = diff.pow(2).sum(-1) + torch.eye(pos.shape[1])
    inv6 = r2.pow(-3) * (1 - torch.eye(pos.shape[1]))
    energy = (inv6.pow(2) - inv6).sum((1, 2)) * 0.5
    (forces,) = torch.autograd.grad(-energy.sum(), pos)
    return energy.detach(), forces.detach()


def make_batches(n):
    g = torch.Generator().manual_seed(7)
    lattice = torch.stack(torch.meshgrid(torch.arange(3.0), torch.arange(4.0), torch.arange(2.0), indexing="ij"), -1).reshape(-1, 3) * 1.2
    out = []
    for _ in range(n):
        pos = lattice.unsqueeze(0) + 0.05 * torch.randn(N_CONF, N_ATOMS, 3, generator=g)
        out.append((pos,) + reference_energy_forces(pos))
    return out


class ForceMatchingTrainer:
    def __init__(self, model, lr=1e-3, force_weight=10.0):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.force_weight = force_weight
        self.log = []

    def predict(self, positions):
        positions.requires_grad_(True)
        energy = self.model(positions)
        energy.sum().backward(create_graph=True)  # TLK302
        forces = -positions.grad
        return energy, forces

    def step(self, pos, e_ref, f_ref):
        positions = pos.clone()
        energy, forces = self.predict(positions)
        loss = F.mse_loss(energy, e_ref) + self.force_weight * F.mse_loss(forces, f_ref)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.log.append(loss.item())


def run(steps):
    torch.manual_seed(0)
    trainer = ForceMatchingTrainer(PairEnergy())
    for pos, e_ref, f_ref in make_batches(steps):
        trainer.step(pos, e_ref, f_ref)
    return trainer


if __name__ == "__main__":
    print(run(5).log)
