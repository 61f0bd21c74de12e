# Source: https://github.com/metaopt/torchopt/issues/218
# Shape: online hyper-gradient training with a differentiable momentum optimizer: the inner steps take gradients with create_graph=True and fold them into a velocity the optimizer keeps, and the outer step backwards a validation loss into the learned log learning rate; after each outer step the network's weights are cut from the graph but the optimizer's velocity is not, so the next outer iteration builds on the previous one's double-backward graph, and its backward, which goes back through that freed graph, raises "Trying to backward through the graph a second time".
# Verdict: leak
import torch
import torch.nn.functional as F


def mlp(params, x):
    w1, b1, w2, b2 = params
    return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


class DifferentiableMomentum:
    def __init__(self, params, log_lr, momentum=0.9):
        self.log_lr = log_lr
        self.momentum = momentum
        self.velocity = [torch.zeros_like(p) for p in params]

    def step(self, loss, params):
        grads = torch.autograd.grad(loss, params, create_graph=True)
        new_params = []
        for i, (p, g) in enumerate(zip(params, grads)):
            self.velocity[i] = self.momentum * self.velocity[i] + g  # TLK301
            new_params.append(p - self.log_lr.exp() * self.velocity[i])
        return new_params


def init_params(d_in=8, hidden=32):
    return [(torch.randn(hidden, d_in) * 0.3).requires_grad_(), torch.zeros(hidden, requires_grad=True), (torch.randn(1, hidden) * 0.3).requires_grad_(), torch.zeros(1, requires_grad=True)]


def stop_gradient(params):
    return [p.detach().requires_grad_() for p in params]


def train(outer_steps, inner_steps=3, sample=None):
    params = init_params()
    log_lr = torch.tensor(-3.0, requires_grad=True)
    hyper_opt = torch.optim.Adam([log_lr], lr=1e-2)
    inner_opt = DifferentiableMomentum(params, log_lr)
    history = []
    for outer in range(outer_steps):
        for _ in range(inner_steps):
            x, y = sample()
            params = inner_opt.step(F.mse_loss(mlp(params, x), y), params)
        x_val, y_val = sample()
        val_loss = F.mse_loss(mlp(params, x_val), y_val)
        hyper_opt.zero_grad()
        val_loss.backward()
        hyper_opt.step()
        params = stop_gradient(params)
        history.append(val_loss.item())
    return history, inner_opt
