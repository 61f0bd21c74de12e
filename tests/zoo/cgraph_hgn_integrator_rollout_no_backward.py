# Source: https://github.com/CampusAI/Hamiltonian-Generative-Networks/issues/23
# Shape: a Hamiltonian network's leapfrog integrator takes dH/dq and dH/dp with torch.autograd.grad(..., create_graph=True) so that training can backpropagate through the integration; the same integrator is used to roll out a long trajectory for visualisation after training, outside any backward, and the positions and momenta it returns are fed into the next step, so every step's double-backward graph is chained to the next and kept until the rollout ends.
# Verdict: leak
import torch
import torch.nn as nn


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
        dq, dp = torch.autograd.grad(energy.sum(), (q, p), create_graph=True)  # TLK301
        return dq, dp

    def step(self, q, p, hnet):
        dq, _ = self._grads(hnet, q, p)
        p_half = p - 0.5 * self.delta_t * dq
        _, dp = self._grads(hnet, q, p_half)
        q_next = q + self.delta_t * dp
        dq_next, _ = self._grads(hnet, q_next, p_half)
        p_next = p_half - 0.5 * self.delta_t * dq_next
        return q_next, p_next


def rollout(hnet, integrator, q0, p0, n_steps):
    q, p = q0.requires_grad_(True), p0.requires_grad_(True)
    positions = []
    for t in range(n_steps):
        q, p = integrator.step(q, p, hnet)  # TLK103
        positions.append(q.norm(dim=-1).mean().item())
    return positions


if __name__ == "__main__":
    torch.manual_seed(0)
    hnet = HamiltonianNet()
    for param in hnet.parameters():
        param.requires_grad_(False)
    traj = rollout(hnet, Integrator(), torch.randn(64, 16), torch.randn(64, 16), n_steps=60)
    print(traj[0], traj[-1])
