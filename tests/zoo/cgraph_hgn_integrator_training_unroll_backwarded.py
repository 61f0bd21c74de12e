# Source: https://github.com/CampusAI/Hamiltonian-Generative-Networks/issues/23
# Shape: training a Hamiltonian network through its leapfrog integrator: dH/dq and dH/dp come from torch.autograd.grad(..., create_graph=True) because the reconstruction loss over the unrolled trajectory is backwarded into the network; the state is carried only across the time steps of one sample, and each batch starts from fresh leaves, so one unroll's graph is alive at a time.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class HamiltonianNet(nn.Module):
    def __init__(self, dim=16, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 * dim, hidden), nn.Softplus(), nn.Linear(hidden, hidden), nn.Softplus(), nn.Linear(hidden, 1))

    def forward(self, q, p):
        return self.net(torch.cat([q, p], dim=-1)).squeeze(-1)


class Integrator:
    def __init__(self, delta_t=0.05):
        self.delta_t = delta_t

    def _grads(self, hnet, q, p):
        energy = hnet(q, p)
        dq, dp = torch.autograd.grad(energy.sum(), (q, p), create_graph=True)
        return dq, dp

    def step(self, q, p, hnet):
        dq, _ = self._grads(hnet, q, p)
        p_half = p - 0.5 * self.delta_t * dq
        _, dp = self._grads(hnet, q, p_half)
        q_next = q + self.delta_t * dp
        dq_next, _ = self._grads(hnet, q_next, p_half)
        p_next = p_half - 0.5 * self.delta_t * dq_next
        return q_next, p_next


def train(hnet, integrator, data, epochs=2, lr=1e-3):
    optimizer = torch.optim.Adam(hnet.parameters(), lr=lr)
    for epoch in range(epochs):
        for q0, p0, q_target in data:
            q, p = q0.clone().requires_grad_(True), p0.clone().requires_grad_(True)
            predicted = []
            for t in range(q_target.size(0)):
                q, p = integrator.step(q, p, hnet)
                predicted.append(q)
            loss = F.mse_loss(torch.stack(predicted), q_target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(64, 16), torch.randn(64, 16), torch.randn(10, 64, 16)) for _ in range(6)]
    train(HamiltonianNet(), Integrator(), data)
