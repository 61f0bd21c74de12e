# Source: https://allamaprabhuani.github.io/tutorials/05-pinns/
# Shape: a damped-oscillator PINN computes du/dt and d2u/dt2 with autograd.grad(create_graph=True) and, after each optimizer step, appends the physics loss and the maximum residual (both built from those second-order gradients) to a history dict kept on the trainer.
# Verdict: leak
import torch
import torch.nn as nn


class OscillatorPINN:
    def __init__(self, model, t_data, u_data, zeta=0.05, omega0=6.283, lam=1e-4, n_colloc=64):
        self.model = model
        self.t_data = t_data
        self.u_data = u_data
        self.zeta = zeta
        self.omega0 = omega0
        self.lam = lam
        self.t_phys = torch.linspace(0.0, 1.0, n_colloc).view(-1, 1)
        self.history = {"data": [], "physics": [], "residual_max": []}

    def residual(self, t):
        t = t.requires_grad_(True)
        u = self.model(t)
        du_dt = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
        d2u_dt2 = torch.autograd.grad(du_dt, t, torch.ones_like(du_dt), create_graph=True)[0]
        return d2u_dt2 + 2 * self.zeta * self.omega0 * du_dt + self.omega0 ** 2 * u

    def fit(self, epochs, lr=1e-3):
        opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        for epoch in range(epochs):
            opt.zero_grad()
            data_loss = ((self.model(self.t_data) - self.u_data) ** 2).mean()
            res = self.residual(self.t_phys.clone())
            physics_loss = (res ** 2).mean()
            loss = data_loss + self.lam * physics_loss
            loss.backward()
            opt.step()
            self.history["data"].append(data_loss.item())
            self.history["physics"].append(physics_loss)  # TLK301
            self.history["residual_max"].append(res.abs().max())  # TLK301
        return self.history


def make_model(width=32):
    return nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))
