# Source: https://github.com/caidao22/pnode/pull/10
# Shape: the discrete-adjoint shell computes each VJP with torch.autograd.grad(..., retain_graph=True) on a freshly recomputed func_eval that it caches on self; nothing differentiates that graph again, so the saved activations of the last recomputation stay alive after training.
# Verdict: leak
import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, dim=32, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, dim))

    def forward(self, t, u):
        return self.net(u)


class ODEPetsc(object):
    """Holds the RHS function and the forward checkpoints, like pnode's ODEPetsc (explicit Euler only)."""

    def __init__(self, funcEX, step_size=0.1):
        self.funcEX = funcEX
        self.step_size = step_size
        self.cached_u_tensor = None
        self.vjp_params = None
        self.checkpoints = []

    def odeint(self, u0, nsteps):
        self.checkpoints = []
        u = u0
        with torch.no_grad():
            for k in range(nsteps):
                self.checkpoints.append((k * self.step_size, u.clone()))
                u = u + self.step_size * self.funcEX(k * self.step_size, u)
        return u


class RHSJacShell(object):
    def __init__(self, ode):
        self.ode_ = ode
        self.func_eval = None

    def multTranspose(self, t, u, x_tensor):
        f_params = tuple(filter(lambda p: p.requires_grad, self.ode_.funcEX.parameters()))
        with torch.set_grad_enabled(True):
            self.ode_.cached_u_tensor = u.detach().requires_grad_(True)
            self.func_eval = self.ode_.funcEX(t, self.ode_.cached_u_tensor)
            vjp_u, *self.ode_.vjp_params = torch.autograd.grad(
                self.func_eval,
                (self.ode_.cached_u_tensor,) + f_params,
                x_tensor,
                allow_unused=True,
                retain_graph=True,  # TLK201
            )
        if vjp_u is None:
            vjp_u = torch.zeros_like(x_tensor)
        return vjp_u


def adjoint_backward(ode, shell, lam):
    params = [p for p in ode.funcEX.parameters() if p.requires_grad]
    grads = [torch.zeros_like(p) for p in params]
    h = ode.step_size
    for t, u in reversed(ode.checkpoints):
        vjp_u = shell.multTranspose(t, u, lam)
        for g, vp in zip(grads, ode.vjp_params):
            if vp is not None:
                g.add_(h * vp)
        lam = lam + h * vjp_u
    for p, g in zip(params, grads):
        p.grad = g
    return lam


def make_batches(n):
    g = torch.Generator().manual_seed(10)
    return [(torch.randn(128, 32, generator=g), torch.randn(128, 32, generator=g) * 0.5) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    func = ODEFunc()
    ode = ODEPetsc(func)
    shell = RHSJacShell(ode)
    optimizer = torch.optim.Adam(func.parameters(), lr=1e-3)
    total = 0.0
    for y0, y_target in batches:
        optimizer.zero_grad()
        pred_y = ode.odeint(y0, nsteps=4).requires_grad_(True)
        loss = torch.mean((pred_y - y_target) ** 2)
        lam = torch.autograd.grad(loss, pred_y)[0]
        adjoint_backward(ode, shell, lam)
        optimizer.step()
        total += loss.item()
    return total / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
