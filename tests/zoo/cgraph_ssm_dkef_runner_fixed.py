# Source: https://github.com/ermongroup/sliced_score_matching/blob/e953d95f7a2473453a761a6c2ff13458ce860fcd/losses/sliced_sm.py
# Shape: the score norm computed from the create_graph=True gradient is detached before it is kept, so the history holds plain tensors; the Langevin sampler carries x across steps but re-detaches it every step.
# Verdict: clean
import math
from dataclasses import dataclass, field

import torch
import torch.autograd as autograd
import torch.nn as nn


@dataclass
class SSMConfig:
    dim: int = 6
    hidden: int = 32
    batch_size: int = 64
    n_particles: int = 2
    lr: float = 1e-3
    langevin_steps: int = 5
    langevin_eps: float = 1e-2
    log_every: int = 5


class EnergyMLP(nn.Module):
    """Small deep kernel exponential family style energy: E(x) -> scalar per sample."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, hidden), nn.Softplus(),
            nn.Linear(hidden, hidden), nn.Softplus(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


def sliced_score_matching(energy_net, samples, n_particles=1):
    dup = samples.unsqueeze(0).expand(n_particles, *samples.shape).contiguous().view(-1, *samples.shape[1:])
    dup.requires_grad_(True)
    vectors = torch.randn_like(dup)
    vectors = vectors / torch.norm(vectors, dim=-1, keepdim=True)

    logp = -energy_net(dup).sum()
    grad1 = autograd.grad(logp, dup, create_graph=True)[0]
    gradv = torch.sum(grad1 * vectors)
    loss1 = torch.sum(grad1 * vectors, dim=-1) ** 2 * 0.5
    grad2 = autograd.grad(gradv, dup, create_graph=True)[0]
    loss2 = torch.sum(vectors * grad2, dim=-1)

    loss1 = loss1.view(n_particles, -1).mean(dim=0)
    loss2 = loss2.view(n_particles, -1).mean(dim=0)
    loss = (loss1 + loss2).mean()
    return loss, grad1, grad2


def make_batches(n_batches, cfg=None, seed=0):
    cfg = cfg or SSMConfig()
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(3, cfg.dim, generator=g) * 2.0
    out = []
    for _ in range(n_batches):
        idx = torch.randint(0, 3, (cfg.batch_size,), generator=g)
        out.append(centers[idx] + 0.3 * torch.randn(cfg.batch_size, cfg.dim, generator=g))
    return out


class DKEFRunner:
    def __init__(self, cfg: SSMConfig):
        self.cfg = cfg
        self.energy = EnergyMLP(cfg.dim, cfg.hidden)
        self.optimizer = torch.optim.Adam(self.energy.parameters(), lr=cfg.lr)
        self.step = 0
        self.history = {"loss": [], "score_norm": []}

    def _record_scores(self, grad1):
        # mean |d log p / dx| over the batch, for the training curve
        score_norm = grad1.norm(dim=-1).mean()
        self.history["score_norm"].append(score_norm.detach())

    def train_step(self, x):
        self.energy.train()
        loss, grad1, _ = sliced_score_matching(self.energy, x, n_particles=self.cfg.n_particles)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        self.history["loss"].append(loss.item())
        self._record_scores(grad1)
        self.step += 1
        return loss.item()

    def langevin_sample(self, n):
        # annealing-free Langevin dynamics on the learned energy; x is re-detached every step
        x = torch.randn(n, self.cfg.dim)
        for _ in range(self.cfg.langevin_steps):
            x.requires_grad_(True)
            with torch.enable_grad():
                grad = autograd.grad(-self.energy(x).sum(), x)[0]
            x = x.detach() + 0.5 * self.cfg.langevin_eps * grad + math.sqrt(self.cfg.langevin_eps) * torch.randn_like(x)
        return x.detach()


def run(steps):
    torch.manual_seed(0)
    cfg = SSMConfig()
    runner = DKEFRunner(cfg)
    for x in make_batches(steps, cfg):
        runner.train_step(x)
        if runner.step % cfg.log_every == 0:
            runner.langevin_sample(16)
    return runner


if __name__ == "__main__":
    run(10)
