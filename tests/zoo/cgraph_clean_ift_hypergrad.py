# Source: https://github.com/lorraine2/implicit-hyper-opt/issues/16
# Shape: implicit-function-theorem hyperparameter step: d_train_loss_d_w comes from grad(..., create_graph=True) and is accumulated with +=, but it is a local of hyper_step, consumed by the Neumann-series HVPs and the hypergradient in the same call, and the weights/hyperparameters only receive detached values.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad


def gather_flat_grad(loss_grad):
    return torch.cat([p.reshape(-1) for p in loss_grad])


class Net(nn.Module):
    def __init__(self, in_dim=20, hidden=32, n_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, n_classes)
        # one log weight-decay hyperparameter per weight tensor entry (as in the per-parameter L2 experiments)
        self.weight_decay = nn.Parameter(torch.full((self.num_weights(),), -4.0))

    def weights(self):
        return [self.fc1.weight, self.fc1.bias, self.fc2.weight, self.fc2.bias]

    def num_weights(self):
        return sum(p.numel() for p in self.weights())

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train_loss_func(model, x, y):
    pred_loss = F.cross_entropy(model(x), y)
    flat_w = gather_flat_grad(model.weights())
    reg_loss = 0.5 * (flat_w.pow(2) * model.weight_decay.exp()).sum() / x.size(0)
    return pred_loss + reg_loss, pred_loss


def val_loss_func(model, x, y):
    return F.cross_entropy(model(x), y)


def neumann_hyperstep_preconditioner(d_val_loss_d_theta, d_train_loss_d_w, elementary_lr, num_neumann_terms, model):
    preconditioner = d_val_loss_d_theta.detach()
    counter = preconditioner
    i = 0
    while i < num_neumann_terms:
        old_counter = counter
        hessian_term = gather_flat_grad(grad(d_train_loss_d_w, model.weights(), grad_outputs=counter.view(-1),
                                             retain_graph=True))
        counter = old_counter - elementary_lr * hessian_term
        preconditioner = preconditioner + counter
        i += 1
    return elementary_lr * preconditioner


def hyper_step(model, hyper_optimizer, train_batch, val_batch, elementary_lr, num_neumann_terms):
    # compute the train-loss gradient w.r.t. weights, keeping its graph for the mixed partials
    d_train_loss_d_w = torch.zeros(model.num_weights())
    x, y = train_batch
    train_loss, _ = train_loss_func(model, x, y)
    hyper_optimizer.zero_grad()
    d_train_loss_d_w += gather_flat_grad(grad(train_loss, model.weights(), create_graph=True))

    # validation-loss gradient w.r.t. weights (no direct dependence on the hyperparameters)
    xv, yv = val_batch
    val_loss = val_loss_func(model, xv, yv)
    d_val_loss_d_theta = gather_flat_grad(grad(val_loss, model.weights()))

    preconditioner = neumann_hyperstep_preconditioner(d_val_loss_d_theta, d_train_loss_d_w, elementary_lr,
                                                      num_neumann_terms, model)
    indirect_grad = grad(d_train_loss_d_w, model.weight_decay, grad_outputs=preconditioner.view(-1))[0]
    model.weight_decay.grad = -indirect_grad.detach()
    hyper_optimizer.step()
    return val_loss.item()


class Splits:
    def __init__(self, size=256, in_dim=20, n_classes=4):
        g = torch.Generator().manual_seed(11)
        self.x = torch.randn(size, in_dim, generator=g)
        w = torch.randn(in_dim, n_classes, generator=g)
        self.y = (self.x @ w).argmax(1)

    def batch(self, g, bs=32, val=False):
        lo, hi = (192, 256) if val else (0, 192)
        idx = torch.randint(lo, hi, (bs,), generator=g)
        return self.x[idx], self.y[idx]


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches, hyper_train_freq=1, elementary_lr=0.1, num_neumann_terms=3):
    model = Net()
    optimizer = torch.optim.SGD(model.weights(), lr=elementary_lr)
    hyper_optimizer = torch.optim.Adam([model.weight_decay], lr=1e-2)
    data = Splits()
    log = []
    for step, seed in enumerate(batches, 1):
        g = torch.Generator().manual_seed(seed)
        x, y = data.batch(g)
        optimizer.zero_grad()
        train_loss, pred_loss = train_loss_func(model, x, y)
        train_loss.backward()
        optimizer.step()
        val_loss = None
        if step % hyper_train_freq == 0:
            val_loss = hyper_step(model, hyper_optimizer, data.batch(g), data.batch(g, val=True),
                                  elementary_lr, num_neumann_terms)
        log.append((pred_loss.item(), val_loss))
    return log
