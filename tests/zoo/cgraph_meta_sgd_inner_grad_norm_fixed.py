# Source: https://github.com/jik0730/Meta-SGD-pytorch/blob/master/train.py
# Shape: the inner-loop gradients are still built with create_graph=True and are consumed by the meta-loss through the adapted parameters (that second-order graph is freed by meta_loss.backward()); only the logged gradient norm is reduced to a float with .item().
# Verdict: clean
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class MetaLearner(nn.Module):
    """Regressor whose forward can run with an adapted (functional) state dict, plus Meta-SGD task_lr."""

    def __init__(self, hidden=40):
        super().__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def define_task_lr_params(self, init_lr=0.01):
        self.task_lr = OrderedDict()
        for key, val in self.named_parameters():
            self.task_lr[key] = nn.Parameter(init_lr * torch.ones_like(val))

    def cloned_state_dict(self):
        return OrderedDict((key, val.clone()) for key, val in self.state_dict().items())

    def forward(self, x, params=None):
        if params is None:
            params = OrderedDict(self.named_parameters())
        x = F.relu(F.linear(x, params['fc1.weight'], params['fc1.bias']))
        x = F.relu(F.linear(x, params['fc2.weight'], params['fc2.bias']))
        return F.linear(x, params['fc3.weight'], params['fc3.bias'])


def train_single_task(model, loss_fn, task, num_train_updates, plot_history):
    model.train()
    X_sup, Y_sup = task['train']

    Y_sup_hat = model(X_sup)
    loss = loss_fn(Y_sup_hat, Y_sup)

    grads = torch.autograd.grad(loss, model.parameters(), create_graph=True)
    grad_norm = torch.norm(torch.stack([g.norm() for g in grads]))
    plot_history['inner_grad_norm'].append(grad_norm.item())

    adapted_state_dict = model.cloned_state_dict()
    adapted_params = OrderedDict()
    for (key, val), grad in zip(model.named_parameters(), grads):
        # NOTE Here Meta-SGD is different from naive MAML
        task_lr = model.task_lr[key]
        adapted_params[key] = val - task_lr * grad
        adapted_state_dict[key] = adapted_params[key]

    for _ in range(1, num_train_updates):
        Y_sup_hat = model(X_sup, adapted_state_dict)
        loss = loss_fn(Y_sup_hat, Y_sup)
        grads = torch.autograd.grad(loss, adapted_params.values(), create_graph=True)
        for (key, val), grad in zip(adapted_params.items(), grads):
            task_lr = model.task_lr[key]
            adapted_params[key] = val - task_lr * grad
            adapted_state_dict[key] = adapted_params[key]

    return adapted_state_dict


def sample_sinusoid_task(g, k_shot=5, k_query=10):
    amplitude = 0.1 + 4.9 * torch.rand(1, generator=g)
    phase = 3.1416 * torch.rand(1, generator=g)
    xs = -5 + 10 * torch.rand(k_shot + k_query, 1, generator=g)
    ys = amplitude * torch.sin(xs - phase)
    return {'train': (xs[:k_shot], ys[:k_shot]), 'meta': (xs[k_shot:], ys[k_shot:])}


def make_batches(n, num_inner_tasks=4):
    g = torch.Generator().manual_seed(2)
    return [[sample_sinusoid_task(g) for _ in range(num_inner_tasks)] for _ in range(n)]


def run(batches, probe=None, num_train_updates=1, meta_lr=1e-3):
    torch.manual_seed(0)
    model = MetaLearner()
    model.define_task_lr_params()
    model_params = list(model.parameters()) + list(model.task_lr.values())
    meta_optimizer = torch.optim.Adam(model_params, lr=meta_lr)
    loss_fn = nn.MSELoss()
    plot_history = {'train_loss': [], 'inner_grad_norm': []}

    for episode, tasks in enumerate(batches):
        adapted_state_dicts = []
        for task in tasks:
            a_dict = train_single_task(model, loss_fn, task, num_train_updates, plot_history)
            adapted_state_dicts.append(a_dict)

        meta_loss = 0
        for task, a_dict in zip(tasks, adapted_state_dicts):
            X_meta, Y_meta = task['meta']
            Y_meta_hat = model(X_meta, a_dict)
            meta_loss += loss_fn(Y_meta_hat, Y_meta)
        meta_loss /= float(len(tasks))

        meta_optimizer.zero_grad()
        meta_loss.backward()
        meta_optimizer.step()
        plot_history['train_loss'].append(meta_loss.item())
        if probe is not None:
            probe()
    return {"meta_loss": plot_history['train_loss'][-1],
            "last_inner_grad_norm": float(plot_history['inner_grad_norm'][-1])}


if __name__ == "__main__":
    print(run(make_batches(5)))
