# Source: https://github.com/kozistr/pytorch_optimizer/issues/278
# Shape: the SophiaH-style training loop with the embedding frozen by requires_grad_(False) before the optimizer is built over the head: loss.backward(create_graph=True) still runs every step, but the only leaves that receive a graph-carrying .grad are the head's parameters, and optimizer.zero_grad(set_to_none=True) drops all of them after each step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


class SophiaH(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.965, 0.99), rho=0.04, update_period=5, eps=1e-12):
        super().__init__(params, dict(lr=lr, betas=betas, rho=rho, eps=eps))
        self.update_period = update_period
        self.steps = 0

    def hutchinson_hessian(self):
        params = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
        grads = [p.grad for p in params]
        zs = [torch.randint_like(p, 0, 2) * 2.0 - 1.0 for p in params]
        h_zs = torch.autograd.grad(grads, params, grad_outputs=zs)
        for p, z, h_z in zip(params, zs, h_zs):
            self.state[p]["hessian"] = (z * h_z).detach()

    @torch.no_grad()
    def step(self):
        if self.steps % self.update_period == 0:
            with torch.enable_grad():
                self.hutchinson_hessian()
        self.steps += 1
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "exp_avg" not in state:
                    state["exp_avg"] = torch.zeros_like(p)
                    state["hessian_moment"] = torch.zeros_like(p)
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                if "hessian" in state:
                    state["hessian_moment"].mul_(beta2).add_(state.pop("hessian"), alpha=1 - beta2)
                ratio = (state["exp_avg"].abs() / (group["rho"] * state["hessian_moment"].clamp(min=0) + group["eps"])).clamp(max=1.0)
                p.add_(state["exp_avg"].sign() * ratio, alpha=-group["lr"])


class TinyLM(nn.Module):
    def __init__(self, vocab=2000, dim=128, context=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Sequential(nn.Linear(context * dim, 512), nn.Tanh(), nn.Linear(512, vocab))

    def forward(self, tokens):
        return self.head(self.embed(tokens).flatten(1))


def train(model, loader):
    model.embed.requires_grad_(False)
    optimizer = SophiaH(model.head.parameters(), lr=1e-3)
    for step, (tokens, target) in enumerate(loader):
        loss = F.cross_entropy(model(tokens), target)
        loss.backward(create_graph=True)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = [(torch.randint(0, 2000, (64, 16)), torch.randint(0, 2000, (64,))) for _ in range(60)]
    train(TinyLM(), loader)
