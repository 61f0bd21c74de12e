# Source: https://github.com/jayroxis/PINNs
# Shape: a physics-informed network for Burgers' equation trained with L-BFGS: the closure computes u_t, u_x and u_xx with autograd.grad(create_graph=True), builds the PDE residual into the loss and backwards it, and only the loss's .item() is printed; every derivative graph is consumed by the closure's backward.
# Verdict: clean
import torch
import torch.nn as nn


class DNN(nn.Module):
    def __init__(self, layers):
        super().__init__()
        mods = []
        for i in range(len(layers) - 2):
            mods += [nn.Linear(layers[i], layers[i + 1]), nn.Tanh()]
        mods.append(nn.Linear(layers[-2], layers[-1]))
        self.layers = nn.Sequential(*mods)

    def forward(self, x):
        return self.layers(x)


class PhysicsInformedNN:
    def __init__(self, X_u, u, X_f, layers, nu, max_iter=50):
        self.x_u, self.t_u = X_u[:, 0:1].clone(), X_u[:, 1:2].clone()
        self.x_f = X_f[:, 0:1].clone().requires_grad_(True)
        self.t_f = X_f[:, 1:2].clone().requires_grad_(True)
        self.u = u
        self.nu = nu
        self.dnn = DNN(layers)
        self.optimizer = torch.optim.LBFGS(self.dnn.parameters(), lr=1.0, max_iter=max_iter,
                                           history_size=50, tolerance_grad=1e-9, line_search_fn="strong_wolfe")
        self.iter = 0

    def net_u(self, x, t):
        return self.dnn(torch.cat([x, t], dim=1))

    def net_f(self, x, t):
        u = self.net_u(x, t)
        u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), retain_graph=True, create_graph=True)[0]
        return u_t + u * u_x - self.nu * u_xx

    def loss_func(self):
        self.optimizer.zero_grad()
        u_pred = self.net_u(self.x_u, self.t_u)
        f_pred = self.net_f(self.x_f, self.t_f)
        loss = torch.mean((self.u - u_pred) ** 2) + torch.mean(f_pred ** 2)
        loss.backward()
        self.iter += 1
        if self.iter % 100 == 0:
            print("Iter %d, Loss: %.5e" % (self.iter, loss.item()))
        return loss

    def train(self):
        self.dnn.train()
        self.optimizer.step(self.loss_func)
