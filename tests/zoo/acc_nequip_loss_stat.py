# Source: https://github.com/mir-group/nequip/pull/1
# Shape: the per-batch loss and its contributions (the force term comes from a create_graph=True force evaluation) are fed to LossStat, whose running sums add the attached tensors, so every batch graph (incl. the double-backward graph) is chained until the epoch-end reset.
# Verdict: leak
import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    """Pairwise-distance MLP energy; forces are -dE/dpos (computed with autograd like nequip's ForceOutput)."""

    def __init__(self, hidden=32):
        super().__init__()
        self.radial = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, data):
        pos = data["pos"].requires_grad_(True)
        diff = pos.unsqueeze(1) - pos.unsqueeze(2)
        dist = (diff.pow(2).sum(-1) + 1e-6).sqrt()
        pair_energy = self.radial(dist.unsqueeze(-1)).squeeze(-1)
        total_energy = 0.5 * pair_energy.sum(dim=(1, 2))
        forces = -torch.autograd.grad(total_energy.sum(), pos, create_graph=self.training)[0]
        return {"total_energy": total_energy, "forces": forces}


class Loss:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, pred, ref):
        contrib = {}
        loss = 0.0
        for key, coeff in self.coeffs.items():
            contrib[key] = nn.functional.mse_loss(pred[key], ref[key])
            loss = loss + coeff * contrib[key]
        return loss, contrib


class RunningStats:
    def __init__(self):
        self.reset()

    def accumulate_batch(self, value):
        self._sum = self._sum + value
        self._n += 1
        return value

    def current_result(self):
        return self._sum / max(self._n, 1)

    def reset(self):
        self._sum = 0.0
        self._n = 0


class LossStat:
    """Keeps running averages of the total loss and of each loss contribution over an epoch."""

    def __init__(self, keys):
        self.loss_stat = {"total": RunningStats()}
        self.loss_stat.update({k: RunningStats() for k in keys})

    def __call__(self, loss, loss_contrib):
        results = {"loss": self.loss_stat["total"].accumulate_batch(loss)}
        for k, v in loss_contrib.items():
            results["loss_" + k] = self.loss_stat[k].accumulate_batch(v)
        return results

    def current_result(self):
        return {k: s.current_result() for k, s in self.loss_stat.items()}

    def reset(self):
        for s in self.loss_stat.values():
            s.reset()


class Trainer:
    def __init__(self, model, loss_coeffs, lr=1e-3):
        self.model = model
        self.loss = Loss(loss_coeffs)
        self.loss_stat = LossStat(loss_coeffs.keys())
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)
        self.batch_losses = {}

    def batch_step(self, data):
        self.optim.zero_grad()
        self.model.train()
        out = self.model(data)
        loss, loss_contrib = self.loss(pred=out, ref=data)
        loss.backward()
        self.optim.step()
        self.batch_losses = self.loss_stat(loss, loss_contrib)  # TLK101

    def epoch_step(self, batches):
        self.loss_stat.reset()
        for data in batches:
            self.batch_step(data)
        return self.loss_stat.current_result()


def make_batches(n, n_frames=4, n_atoms=6):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        pos = torch.randn(n_frames, n_atoms, 3, generator=g)
        batches.append({
            "pos": pos,
            "total_energy": torch.randn(n_frames, generator=g),
            "forces": torch.randn(n_frames, n_atoms, 3, generator=g),
        })
    return batches


def run(steps):
    torch.manual_seed(0)
    trainer = Trainer(EnergyModel(), {"total_energy": 1.0, "forces": 10.0})
    batches = make_batches(steps)
    trainer.loss_stat.reset()
    for data in batches:
        trainer.batch_step(data)
    return trainer


if __name__ == "__main__":
    t = run(5)
    print({k: float(v) for k, v in t.loss_stat.current_result().items()})
