# Source: https://github.com/TorchSim/torch-sim/pull/564
# Shape: the same velocity-Verlet loop over a potential that keeps its force graph, with the pull request's fix: the integrator detaches every tensor of the state after each step, so each force call differentiates one step's graph only and nothing links one step to the next.
# Verdict: clean
from dataclasses import dataclass

import torch
import torch.nn as nn


class PairPotential(nn.Module):
    def __init__(self, hidden=32, retain_graph=True):
        super().__init__()
        self.radial = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, 1))
        self.retain_graph = retain_graph

    def forward(self, positions):
        diff = positions.unsqueeze(0) - positions.unsqueeze(1)
        dist = (diff.pow(2).sum(-1) + 1e-6).sqrt()
        mask = ~torch.eye(positions.size(0), dtype=torch.bool)
        return self.radial(dist[mask].unsqueeze(-1)).sum() / 2


@dataclass
class SimState:
    positions: torch.Tensor
    velocities: torch.Tensor
    masses: torch.Tensor
    forces: torch.Tensor
    energy: torch.Tensor

    def detach_(self):
        for name in ("positions", "velocities", "forces", "energy"):
            setattr(self, name, getattr(self, name).detach())
        return self


def compute_forces(model, positions):
    if not positions.requires_grad:
        positions = positions.requires_grad_(True)
    energy = model(positions)
    (grad,) = torch.autograd.grad(energy, positions, create_graph=model.retain_graph)
    return energy, -grad


def velocity_verlet_step(state, model, dt):
    inv_m = (1.0 / state.masses).unsqueeze(-1)
    half_v = state.velocities + 0.5 * dt * state.forces * inv_m
    positions = state.positions + dt * half_v
    energy, forces = compute_forces(model, positions)
    velocities = half_v + 0.5 * dt * forces * inv_m
    return SimState(positions, velocities, state.masses, forces, energy)


def integrate(model, positions, n_steps, dt=1e-3, trajectory_every=10):
    masses = torch.ones(positions.size(0))
    energy, forces = compute_forces(model, positions.clone())
    state = SimState(positions, torch.zeros_like(positions), masses, forces, energy)
    trajectory = []
    for step in range(n_steps):
        state = velocity_verlet_step(state, model, dt)
        if model.retain_graph:
            state.detach_()
        if step % trajectory_every == 0:
            trajectory.append((step, state.energy.item(), state.positions.detach().clone()))
    return state, trajectory
