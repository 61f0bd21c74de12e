# Source: https://github.com/f-dangel/backpack/issues/238
# Shape: training with a second-order optimizer (ESGD-M style) that needs the graph of the gradient: every step calls loss.backward(create_graph=True) so that step() can take a Hessian-vector product every ten steps through p.grad, and every step starts with optimizer.zero_grad(), which drops the previous step's graph-carrying grads; without BackPACK's hooks in the way the memory is flat (the reporter's OOM came from BackPACK holding the graphs).
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ESGDM(torch.optim.Optimizer):
    """Equilibrated SGD with momentum: preconditions by a running estimate of diag(H^2)."""

    def __init__(self, params, lr=1e-3, beta=0.9, d_interval=10, eps=1e-4):
        super().__init__(params, dict(lr=lr, beta=beta, eps=eps))
        self.d_interval = d_interval
        self.step_count = 0

    @torch.no_grad()
    def step(self):
        params = [p for g in self.param_groups for p in g["params"] if p.grad is not None]
        if self.step_count % self.d_interval == 0:
            vs = [torch.randn_like(p) for p in params]
            with torch.enable_grad():
                hvps = torch.autograd.grad([p.grad for p in params], params, vs)
            for p, hvp in zip(params, hvps):
                st = self.state[p]
                st["d"] = st.get("d", torch.zeros_like(p)) + hvp.pow(2)
        self.step_count += 1
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                buf = st.setdefault("momentum", torch.zeros_like(p))
                buf.mul_(group["beta"]).add_(p.grad)
                d = st.get("d", torch.ones_like(p)).div(self.step_count).sqrt().add_(group["eps"])
                p.sub_(group["lr"] * buf / d)


def train(model, loader, epochs=1):
    opt = ESGDM(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward(create_graph=True)
            opt.step()
