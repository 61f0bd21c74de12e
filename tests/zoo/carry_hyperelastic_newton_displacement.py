# Source: https://github.com/meyer-nils/torch-fem/issues/29
# Shape: a small finite-element solver for a hyperelastic bar gets the stress from the strain energy with autograd.grad(psi, F, create_graph=True) (the material parameters are differentiable tensors) and runs Newton iterations over load increments, updating the displacement with u = u - du; the solve is only used for a force-displacement curve, but u is never detached, so it chains every Newton iteration's graph (the stress graph and the stiffness matrix each solve saves) across all increments.
# Verdict: leak
import torch


class NeoHookeanBar:
    def __init__(self, n_elements=300, length=1.0, area=1.0, mu=1.0, lam=2.0):
        self.n = n_elements
        self.h = length / n_elements
        self.area = area
        self.mu = torch.tensor(mu, requires_grad=True)
        self.lam = torch.tensor(lam, requires_grad=True)
        B = torch.zeros(n_elements, n_elements + 1)
        idx = torch.arange(n_elements)
        B[idx, idx] = -1.0 / self.h
        B[idx, idx + 1] = 1.0 / self.h
        self.B = B

    def energy(self, F):
        logF = torch.log(F)
        return 0.5 * self.mu * (F ** 2 - 1.0 - 2.0 * logF) + 0.5 * self.lam * logF ** 2

    def stress(self, u):
        F = 1.0 + self.B @ u
        if not F.requires_grad:
            F.requires_grad_(True)
        (P,) = torch.autograd.grad(self.energy(F).sum(), F, create_graph=True)
        (dP_dF,) = torch.autograd.grad(P.sum(), F)
        return P, dP_dF

    def solve(self, load, increments=10, max_iter=8, rtol=1e-8):
        u = torch.zeros(self.n + 1)
        free = torch.arange(1, self.n + 1)
        curve = []
        for inc in range(1, increments + 1):
            f_ext = torch.zeros(self.n + 1)
            f_ext[-1] = load * inc / increments
            for it in range(max_iter):
                P, dP_dF = self.stress(u)
                r = self.B.T @ (P * self.area * self.h) - f_ext
                K = self.B.T @ torch.diag(dP_dF * self.area * self.h) @ self.B
                du = torch.linalg.solve(K[free][:, free], r[free])
                u = u - torch.zeros_like(u).index_copy(0, free, du)  # TLK103
                if r[free].norm() < rtol * max(1.0, abs(f_ext[-1].item())):
                    break
            curve.append((f_ext[-1].item(), u[-1].item()))
        return curve


if __name__ == "__main__":
    torch.manual_seed(0)
    bar = NeoHookeanBar()
    for force, disp in bar.solve(load=0.8):
        print(f"{force:.3f} {disp:.5f}")
