# Source: https://github.com/christianversloot/machine-learning-articles/blob/main/how-to-use-k-fold-cross-validation-with-pytorch.md
# Shape: the per-fold evaluation runs without no_grad and returns the held-out loss tensor; the fold loop stores it in the results list, so every finished fold keeps its whole validation graph (activations of the full held-out split) alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


K_FOLDS = 5
ITERS_PER_FOLD = 5


def make_batches(n, n_samples=320, in_dim=24, n_classes=3):
    """Synthetic dataset (n is unused beyond seeding; folds are cut from it)."""
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n_samples, in_dim, generator=g)
    y = torch.randint(0, n_classes, (n_samples,), generator=g)
    return x, y


def kfold_indices(n_samples, k, seed):
    perm = torch.randperm(n_samples, generator=torch.Generator().manual_seed(seed))
    folds = perm.chunk(k)
    for i in range(k):
        val_idx = folds[i]
        train_idx = torch.cat([f for j, f in enumerate(folds) if j != i])
        yield i, train_idx, val_idx


def reset_weights(m):
    for layer in m.children():
        if hasattr(layer, "reset_parameters"):
            layer.reset_parameters()


class SimpleMLP(nn.Module):
    def __init__(self, in_dim=24, hidden=128, n_classes=3):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU(),
                                    nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.layers(x)


def train_fold(model, x, y, train_idx, iters, batch_size=32, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for it in range(iters):
        idx = train_idx[(it * batch_size) % len(train_idx):][:batch_size]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()


def evaluate(model, x, y, val_idx):
    model.eval()
    outputs = model(x[val_idx])
    val_loss = F.cross_entropy(outputs, y[val_idx])
    correct = (outputs.argmax(1) == y[val_idx]).sum().item()
    return val_loss, 100.0 * correct / len(val_idx)


def cross_validate(total_iters):
    x, y = make_batches(0)
    model = SimpleMLP()
    results = []
    n_folds_to_run = max(total_iters // ITERS_PER_FOLD, 1)
    repeat = 0
    while len(results) < n_folds_to_run:
        for fold, train_idx, val_idx in kfold_indices(len(x), K_FOLDS, seed=repeat):
            if len(results) >= n_folds_to_run:
                break
            model.apply(reset_weights)
            train_fold(model, x, y, train_idx, ITERS_PER_FOLD)
            val_loss, acc = evaluate(model, x, y, val_idx)
            results.append({"repeat": repeat, "fold": fold, "val_loss": val_loss, "acc": acc})  # TLK102
        repeat += 1
    return model, results


def summarize(results):
    mean_acc = sum(r["acc"] for r in results) / len(results)
    mean_loss = sum(float(r["val_loss"]) for r in results) / len(results)
    return mean_acc, mean_loss


def run(steps):
    model, results = cross_validate(steps)
    summarize(results)
    return model, results


if __name__ == "__main__":
    _, res = run(30)
    print(len(res), summarize(res))
