# Source: https://github.com/CIS-522/course-content/pull/2
# Shape: Fixed twin (the PR): the training and validation losses are detached before they go into the plotted histories, so the lists keep one scalar per epoch and no graph; the plotting helper is unchanged.
# Verdict: clean
"""Deep linear network tutorial: train nets of a few depths on a synthetic linear
regression task and plot the loss curves (CIS-522 W2D1 style)."""
import torch
import torch.nn as nn


class DeepLinearNet(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim, depth):
        super().__init__()
        dims = [in_dim] + [hidden_dim] * (depth - 1) + [out_dim]
        self.layers = nn.ModuleList([nn.Linear(dims[i], dims[i + 1], bias=False) for i in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def make_batches(n_samples=256, in_dim=16, out_dim=4, seed=0):
    gen = torch.Generator().manual_seed(seed)
    W_true = torch.randn(in_dim, out_dim, generator=gen) / in_dim ** 0.5
    X = torch.randn(n_samples, in_dim, generator=gen)
    y = X @ W_true + 0.05 * torch.randn(n_samples, out_dim, generator=gen)
    split = int(0.8 * n_samples)
    return (X[:split], y[:split]), (X[split:], y[split:])


def train(model, train_data, val_data, num_epochs, lr=0.05):
    X, y = train_data
    X_val, y_val = val_data
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, val_losses = [], []
    for epoch in range(num_epochs):
        y_pred = model(X)
        l = loss_fn(y_pred, y)
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
        losses.append(l.detach())
        val_losses.append(loss_fn(model(X_val), y_val).detach())
    return losses, val_losses


def plot_losses(curves, num_epochs):
    """Return the (x, y) series a matplotlib call would receive."""
    series = {}
    for depth, (losses, val_losses) in curves.items():
        series[depth] = (list(range(num_epochs)),
                         torch.stack(losses).tolist(),
                         torch.stack(val_losses).tolist())
    return series


def run(steps):
    torch.manual_seed(0)
    train_data, val_data = make_batches()
    curves, models = {}, {}
    for depth in (1, 3, 5):
        model = DeepLinearNet(16, 32, 4, depth)
        curves[depth] = train(model, train_data, val_data, num_epochs=steps)
        models[depth] = model
    series = plot_losses(curves, steps)
    return models, curves, series


if __name__ == "__main__":
    run(10)
