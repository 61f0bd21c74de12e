# Source: https://discuss.pytorch.org/t/gradient-hessian-product-error/185126
# Shape: Fixed: only dLt/dw is built with create_graph=True (needed for the Hessian-vector products of this step, which reuse it with retain_graph=True); the validation gradient, the Neumann terms and the mixed derivative are plain first-order results, so the hypergradient has no graph and the history stores floats.
# Verdict: clean
import torch
import torch.nn as nn
from torch.autograd import grad

BATCH = 32
NEUMANN_TERMS = 10
LR = 0.01
HYPER_LR = 0.05


def make_batches(n_batches, seed=123):
    """(train batch, validation batch) pairs of y = 2x + 1 + noise."""
    torch.manual_seed(seed)
    out = []
    for _ in range(n_batches):
        x_tr = torch.randn(BATCH, 1)
        y_tr = 2 * x_tr + 1 + torch.randn(BATCH, 1) * 0.1
        x_val = torch.randn(BATCH, 1)
        y_val = 2 * x_val + 1 + torch.randn(BATCH, 1) * 0.1
        out.append(((x_tr, y_tr), (x_val, y_val)))
    return out


def build_model():
    return nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 1))


def train_loss_fn(model, log_lam, x, y, loss_fn):
    l2 = sum((p ** 2).sum() for p in model.parameters())
    return loss_fn(model(x), y) + log_lam.exp() * l2


def neumann_inverse_hvp(dlt_dw, w, v, lr, terms):
    """Approximates v^T (d2Lt/dw2)^-1 with a truncated Neumann series."""
    p = [vi.clone() for vi in v]
    for _ in range(terms):
        hvp = grad(dlt_dw, w, grad_outputs=v, retain_graph=True)
        v = [vi - lr * hi for vi, hi in zip(v, hvp)]
        p = [pi + vi for pi, vi in zip(p, v)]
    return p


def hypergradient(model, log_lam, train_batch, val_batch, loss_fn):
    w = list(model.parameters())
    x_tr, y_tr = train_batch
    x_val, y_val = val_batch
    val_loss = loss_fn(model(x_val), y_val)
    dlv_dw = grad(val_loss, w)
    train_loss = train_loss_fn(model, log_lam, x_tr, y_tr, loss_fn)
    dlt_dw = grad(train_loss, w, create_graph=True)
    p = neumann_inverse_hvp(dlt_dw, w, dlv_dw, LR, NEUMANN_TERMS)
    # mixed second derivative d2Lt/(dlam dw) applied to p
    mixed = grad(dlt_dw, log_lam, grad_outputs=p)[0]
    return -mixed, val_loss


def run(steps):
    torch.manual_seed(123)
    model = build_model()
    loss_fn = nn.MSELoss()
    log_lam = torch.tensor(-3.0, requires_grad=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    history = {"val_loss": [], "lam": [], "hypergrad": []}
    for train_batch, val_batch in make_batches(steps):
        # inner step on the training loss with the current weight decay
        x_tr, y_tr = train_batch
        optimizer.zero_grad()
        loss = train_loss_fn(model, log_lam.detach(), x_tr, y_tr, loss_fn)
        loss.backward()
        optimizer.step()

        # outer step on lambda
        hg, val_loss = hypergradient(model, log_lam, train_batch, val_batch, loss_fn)
        with torch.no_grad():
            log_lam -= HYPER_LR * hg
        history["val_loss"].append(val_loss.item())
        history["lam"].append(log_lam.exp().item())
        history["hypergrad"].append(hg.item())
    return {"model": model, "log_lam": log_lam, "history": history}


if __name__ == "__main__":
    run(10)
