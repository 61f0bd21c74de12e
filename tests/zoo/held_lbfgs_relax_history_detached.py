# Source: https://github.com/TorchSim/torch-sim/pull/559
# Shape: the fixed relaxation loop: the position difference and the new positions are detached before they enter the L-BFGS history and the state, so the history holds plain tensors however many steps run.
# Verdict: clean
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class RelaxState:
    positions: torch.Tensor
    forces: torch.Tensor
    energy: torch.Tensor
    s_history: torch.Tensor
    y_history: torch.Tensor


def energy_and_forces(model: nn.Module, positions: torch.Tensor):
    positions = positions.detach().requires_grad_(True)
    energy = model(positions).sum()
    forces = -torch.autograd.grad(energy, positions)[0]
    return positions, energy.detach(), forces


def two_loop_direction(grad, s_history, y_history):
    q = grad.clone()
    alphas = []
    for i in reversed(range(s_history.shape[1])):
        s, y = s_history[:, i], y_history[:, i]
        rho = 1.0 / (y @ s).clamp_min(1e-10)
        alpha = rho * (s @ q)
        q = q - alpha * y
        alphas.append((rho, alpha))
    if s_history.shape[1]:
        s, y = s_history[:, -1], y_history[:, -1]
        q = q * (s @ y) / (y @ y).clamp_min(1e-10)
    for i, (rho, alpha) in zip(range(s_history.shape[1]), reversed(alphas)):
        s, y = s_history[:, i], y_history[:, i]
        q = q + (alpha - rho * (y @ q)) * s
    return -q


def lbfgs_relax(model: nn.Module, positions: torch.Tensor, max_steps=500, memory=10, max_step=0.2, fmax=0.05):
    positions, energy, forces = energy_and_forces(model, positions)
    n = positions.numel()
    state = RelaxState(positions, forces, energy, positions.new_zeros(n, 0), positions.new_zeros(n, 0))
    for step in range(max_steps):
        direction = two_loop_direction(-state.forces.flatten(), state.s_history, state.y_history)
        direction = direction.view_as(state.positions)
        scale = (max_step / direction.norm(dim=-1).max().clamp_min(1e-12)).clamp(max=1.0)
        new_positions = state.positions + scale * direction
        new_positions, energy, new_forces = energy_and_forces(model, new_positions)
        s_new = (new_positions - state.positions).detach().flatten()
        y_new = (state.forces - new_forces).flatten()
        state.s_history = torch.cat([state.s_history, s_new.unsqueeze(1)], dim=1)[:, -memory:]
        state.y_history = torch.cat([state.y_history, y_new.unsqueeze(1)], dim=1)[:, -memory:]
        state.positions, state.forces, state.energy = new_positions.detach(), new_forces, energy
        if new_forces.norm(dim=-1).max() < fmax:
            break
    return state
