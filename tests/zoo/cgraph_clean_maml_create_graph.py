# Source: https://github.com/dragen1860/MAML-Pytorch/issues/63
# Shape: second-order MAML: inner-loop grads use autograd.grad(create_graph=True) to build fast weights, the per-task query losses are summed and backwarded in the same meta step, and only .item() values are logged.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    """Functional MLP so the forward pass can run on fast weights."""

    def __init__(self, in_dim=1, hidden=40):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, in_dim) * 0.5), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(hidden, hidden) * 0.1), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(1, hidden) * 0.1), nn.Parameter(torch.zeros(1)),
        ])

    def forward(self, x, vars=None):
        if vars is None:
            vars = self.vars
        x = F.relu(F.linear(x, vars[0], vars[1]))
        x = F.relu(F.linear(x, vars[2], vars[3]))
        return F.linear(x, vars[4], vars[5])

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, update_lr=0.01, meta_lr=1e-3, update_step=3):
        super().__init__()
        self.update_lr = update_lr
        self.update_step = update_step
        self.net = Learner()
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = [0.0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i])
            loss = F.mse_loss(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = [p - self.update_lr * g for g, p in zip(grad, self.net.parameters())]
            with torch.no_grad():
                losses_q[0] += F.mse_loss(self.net(x_qry[i]), y_qry[i]).item()
            for k in range(1, self.update_step + 1):
                logits = self.net(x_spt[i], fast_weights)
                loss = F.mse_loss(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = [p - self.update_lr * g for g, p in zip(grad, fast_weights)]
                logits_q = self.net(x_qry[i], fast_weights)
                loss_q = F.mse_loss(logits_q, y_qry[i])
                if k == self.update_step:
                    losses_q[k] = losses_q[k] + loss_q
                else:
                    losses_q[k] += loss_q.item()
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return [l / task_num for l in losses_q[:-1]] + [loss_q.item()]


def make_batches(n):
    torch.manual_seed(0)
    # per meta-batch: (amplitude, phase) of each sine task
    return [tuple(map(tuple, torch.rand(4, 2).tolist())) for _ in range(n)]


def sample_tasks(task_params, k_shot=10, k_query=10):
    x_spt, y_spt, x_qry, y_qry = [], [], [], []
    g = torch.Generator().manual_seed(int(task_params[0][0] * 1e6))
    for amp, phase in task_params:
        amp, phase = 0.1 + 4.9 * amp, 3.1416 * phase
        xs = torch.rand(k_shot + k_query, 1, generator=g) * 10 - 5
        ys = amp * torch.sin(xs - phase)
        x_spt.append(xs[:k_shot]); y_spt.append(ys[:k_shot])
        x_qry.append(xs[k_shot:]); y_qry.append(ys[k_shot:])
    return torch.stack(x_spt), torch.stack(y_spt), torch.stack(x_qry), torch.stack(y_qry)


def run(batches):
    torch.manual_seed(1)
    maml = Meta()
    accs = None
    for step, task_params in enumerate(batches):
        x_spt, y_spt, x_qry, y_qry = sample_tasks(task_params)
        accs = maml(x_spt, y_spt, x_qry, y_qry)
    return accs
