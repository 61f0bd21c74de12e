# Source: https://blog.youkuaiyun.com/qq_49323609/article/details/134479610
# Shape: Same PINN; derivatives come from torch.autograd.grad(..., create_graph=True) (what the PyTorch warning and the blog recommend), which returns the gradients without storing them in x.grad, so no cycle forms; the create_graph residual is backwarded in the same step.
# Verdict: clean
import io
import math

import torch
import torch.nn as nn

KAPPA = 0.1


def make_batches(n_batches=5, n_collocation=128, n_boundary=32, seed=0):
    """Collocation, initial-condition and boundary points for u_t = k u_xx on [0,1]x[0,1]."""
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        xt = torch.rand(n_collocation, 2, generator=g)
        x0 = torch.rand(n_boundary, 1, generator=g)
        ic = torch.cat([x0, torch.zeros_like(x0)], 1)
        u0 = torch.sin(math.pi * x0)
        tb = torch.rand(n_boundary, 1, generator=g)
        bc = torch.cat([torch.cat([torch.zeros_like(tb), tb], 1), torch.cat([torch.ones_like(tb), tb], 1)], 0)
        batches.append({"xt": xt, "ic": ic, "u0": u0, "bc": bc})
    return batches


class PINN(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        layers, d = [], 2
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def exact_solution(x, t):
    return torch.exp(-KAPPA * math.pi ** 2 * t) * torch.sin(math.pi * x)


def derivatives(model, xt):
    x = xt[:, :1].clone().requires_grad_(True)
    t = xt[:, 1:].clone().requires_grad_(True)
    u = model(x, t)
    u_x, u_t = torch.autograd.grad(u, (x, t), grad_outputs=torch.ones_like(u), create_graph=True)
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    return u, u_t, u_xx


def pde_loss(model, batch):
    _, u_t, u_xx = derivatives(model, batch["xt"])
    residual = u_t - KAPPA * u_xx
    loss_pde = residual.pow(2).mean()
    loss_ic = (model(batch["ic"][:, :1], batch["ic"][:, 1:]) - batch["u0"]).pow(2).mean()
    loss_bc = model(batch["bc"][:, :1], batch["bc"][:, 1:]).pow(2).mean()
    return loss_pde, loss_ic, loss_bc


class Trainer:
    def __init__(self, model, lr=1e-3, w_ic=10.0, w_bc=10.0):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=0.99)
        self.weights = {"pde": 1.0, "ic": w_ic, "bc": w_bc}
        self.history = {"pde": [], "ic": [], "bc": [], "total": [], "l2_err": []}
        self.best = (float("inf"), None)

    def step(self, batch):
        self.optimizer.zero_grad()
        loss_pde, loss_ic, loss_bc = pde_loss(self.model, batch)
        total = self.weights["pde"] * loss_pde + self.weights["ic"] * loss_ic + self.weights["bc"] * loss_bc
        total.backward()
        self.optimizer.step()
        self.scheduler.step()
        for k, v in (("pde", loss_pde), ("ic", loss_ic), ("bc", loss_bc), ("total", total)):
            self.history[k].append(v.item())
        return total.item()

    @torch.no_grad()
    def evaluate(self, n=64):
        xs = torch.linspace(0, 1, n).unsqueeze(1)
        ts = torch.full_like(xs, 0.5)
        err = (self.model(xs, ts) - exact_solution(xs, ts)).norm() / exact_solution(xs, ts).norm()
        return err.item()

    def checkpoint(self, loss):
        if loss < self.best[0]:
            buf = io.BytesIO()
            torch.save(self.model.state_dict(), buf)
            self.best = (loss, buf.getvalue())


def run(steps):
    torch.manual_seed(0)
    batches = make_batches()
    trainer = Trainer(PINN())
    for step in range(steps):
        loss = trainer.step(batches[step % len(batches)])
        if (step + 1) % 5 == 0:
            trainer.history["l2_err"].append(trainer.evaluate())
            trainer.checkpoint(loss)
    return {"model": trainer.model, "history": trainer.history}


if __name__ == "__main__":
    run(10)
