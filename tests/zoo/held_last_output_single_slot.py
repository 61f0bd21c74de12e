# Source: https://github.com/Lightning-AI/pytorch-lightning/pull/9336
# Shape: a hand-written loop keeps the last step's loss and outputs in attributes that are overwritten every step (one graph at most, not one per step), and a list of per-step floats.
# Verdict: clean
import torch
import torch.nn as nn


class ODETrainer:
    def __init__(self, field: nn.Module, solver, lr=1e-3):
        self.field = field
        self.solver = solver
        self.optimizer = torch.optim.Adam(field.parameters(), lr=lr)
        self.last_loss = None
        self.last_trajectory = None
        self.curve = []

    def fit(self, loader):
        for t_span, y0, y_true in loader:
            trajectory = self.solver(self.field, y0, t_span)
            loss = (trajectory - y_true).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.last_loss = loss
            self.last_trajectory = trajectory
            self.curve.append(loss.item())
