# Source: https://github.com/ComputationalDomain/PINNs/issues/1
# Shape: the Navier-Stokes PINN takes first and second derivatives with torch.autograd.grad(..., create_graph=True) inside an LBFGS closure, but those derivatives only form the residual loss that is backwarded in the same closure and only loss.item() is kept, so nothing from the double-backward graph outlives a step.
# Verdict: clean
import torch
import torch.nn as nn

nu = 0.01


class NavierStokes():
    def __init__(self):
        self.null = None
        self.network()
        self.optimizer = torch.optim.LBFGS(self.net.parameters(), lr=1, max_iter=3, history_size=10,
                                           line_search_fn="strong_wolfe")
        self.mse = nn.MSELoss()
        self.loss_history = []
        self.iter = 0

    def network(self):
        self.net = nn.Sequential(
            nn.Linear(3, 20), nn.Tanh(),
            nn.Linear(20, 20), nn.Tanh(),
            nn.Linear(20, 2))

    def function(self, x, y, t):
        res = self.net(torch.hstack((x, y, t)))
        psi, p = res[:, 0:1], res[:, 1:2]
        u = torch.autograd.grad(psi, y, grad_outputs=torch.ones_like(psi), create_graph=True)[0]
        v = -1. * torch.autograd.grad(psi, x, grad_outputs=torch.ones_like(psi), create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
        u_y = torch.autograd.grad(u, y, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        v_x = torch.autograd.grad(v, x, grad_outputs=torch.ones_like(v), create_graph=True)[0]
        v_y = torch.autograd.grad(v, y, grad_outputs=torch.ones_like(v), create_graph=True)[0]
        v_t = torch.autograd.grad(v, t, grad_outputs=torch.ones_like(v), create_graph=True)[0]
        p_x = torch.autograd.grad(p, x, grad_outputs=torch.ones_like(p), create_graph=True)[0]
        p_y = torch.autograd.grad(p, y, grad_outputs=torch.ones_like(p), create_graph=True)[0]
        f = u_t + u * u_x + v * u_y + p_x - nu * u_xx
        g = v_t + u * v_x + v * v_y + p_y - nu * v_x
        return u, v, p, f, g

    def train_on(self, X, Y, T, u_obs, v_obs):
        x = X.clone().requires_grad_(True)
        y = Y.clone().requires_grad_(True)
        t = T.clone().requires_grad_(True)
        null = torch.zeros_like(x)

        def closure():
            self.optimizer.zero_grad()
            u_prediction, v_prediction, p_prediction, f_prediction, g_prediction = self.function(x, y, t)
            u_loss = self.mse(u_prediction, u_obs)
            v_loss = self.mse(v_prediction, v_obs)
            f_loss = self.mse(f_prediction, null)
            g_loss = self.mse(g_prediction, null)
            self.ls = u_loss + v_loss + f_loss + g_loss
            self.ls.backward()
            self.iter += 1
            return self.ls

        self.optimizer.step(closure)
        self.loss_history.append(self.ls.item())
        self.ls = None


def make_batches(n):
    gen = torch.Generator().manual_seed(1)
    out = []
    for _ in range(n):
        X, Y, T = (torch.rand(64, 1, generator=gen) for _ in range(3))
        out.append((X, Y, T, torch.sin(X) * torch.cos(Y), -torch.cos(X) * torch.sin(Y)))
    return out


def run(batches):
    torch.manual_seed(0)
    pinn = NavierStokes()
    for X, Y, T, u, v in batches:
        pinn.train_on(X, Y, T, u, v)
    return sum(pinn.loss_history) / len(pinn.loss_history)


if __name__ == "__main__":
    print(run(make_batches(5)))
