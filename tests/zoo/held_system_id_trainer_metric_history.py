# Source: https://github.com/pnnl/neuromancer/pull/292
# Shape: A system-identification Trainer stores the Problem's per-batch output dict (loss and metric tensors still attached) in self.history and keeps a best-checkpoint copy.
# Verdict: leak
import copy
import torch
import torch.nn as nn


class SSM(nn.Module):
    """Neural state-space model x_{k+1} = A x_k + f(x_k, u_k)."""

    def __init__(self, nx=4, nu=2, hidden=32):
        super().__init__()
        self.A = nn.Linear(nx, nx, bias=False)
        self.f = nn.Sequential(nn.Linear(nx + nu, hidden), nn.Tanh(), nn.Linear(hidden, nx))

    def forward(self, x0, U):
        xs = []
        x = x0
        for k in range(U.shape[1]):
            x = self.A(x) + self.f(torch.cat([x, U[:, k]], dim=-1))
            xs.append(x)
        return torch.stack(xs, dim=1)


class Problem(nn.Module):
    def __init__(self, model, smooth_weight=0.1):
        super().__init__()
        self.model = model
        self.smooth_weight = smooth_weight

    def forward(self, batch, prefix="train"):
        x0, U, X = batch
        Xhat = self.model(x0, U)
        mse = (Xhat - X).pow(2).mean()
        smooth = (Xhat[:, 1:] - Xhat[:, :-1]).pow(2).mean()
        loss = mse + self.smooth_weight * smooth
        return {f"{prefix}_loss": loss, f"{prefix}_mse": mse, f"{prefix}_smooth": smooth}


def save_checkpoint(state, store):
    store["best"] = copy.deepcopy(state)


class Trainer:
    def __init__(self, problem, lr=3e-3, epoch_verbose=8):
        self.problem = problem
        self.optimizer = torch.optim.AdamW(problem.parameters(), lr=lr)
        self.history = {}
        self.best_loss = float("inf")
        self.checkpoints = {}
        self.epoch_verbose = epoch_verbose

    def train_epoch(self, loader):
        self.problem.train()
        for i, batch in enumerate(loader):
            output = self.problem(batch, prefix="train")
            self.optimizer.zero_grad()
            output["train_loss"].backward()
            self.optimizer.step()
            for key, value in output.items():
                self.history.setdefault(key, []).append(value)  # TLK102
            batch_loss = output["train_loss"].item()
            if batch_loss < self.best_loss:
                self.best_loss = batch_loss
                save_checkpoint(self.problem.state_dict(), self.checkpoints)
            if i % self.epoch_verbose == 0:
                print(f"step {i}: loss {batch_loss:.4f}")

    def fit(self, loader, epochs=1):
        for _ in range(epochs):
            self.train_epoch(loader)
        self.problem.load_state_dict(self.checkpoints["best"])
        return self.history


def make_batches(n=24, seed=0, bs=8, nsteps=10, nx=4, nu=2):
    g = torch.Generator().manual_seed(seed)
    A = 0.9 * torch.eye(nx) + 0.05 * torch.randn(nx, nx, generator=g)
    B = torch.randn(nu, nx, generator=g) * 0.3
    batches = []
    for _ in range(n):
        x0 = torch.randn(bs, nx, generator=g)
        U = torch.randn(bs, nsteps, nu, generator=g)
        xs, x = [], x0
        for k in range(nsteps):
            x = x @ A.t() + U[:, k] @ B
            xs.append(x)
        batches.append((x0, U, torch.stack(xs, dim=1)))
    return batches


def run(batches):
    torch.manual_seed(0)
    trainer = Trainer(Problem(SSM()))
    history = trainer.fit(batches)
    print("best loss", trainer.best_loss, "logged keys", sorted(history))
    return history


if __name__ == "__main__":
    run(make_batches())
