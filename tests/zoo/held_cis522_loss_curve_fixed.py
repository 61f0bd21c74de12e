# Source: https://github.com/CIS-522/course-content/pull/2
# Shape: train() appends loss.item() (the PR detaches before appending), so `losses` is a list of Python floats and each epoch's graph is released after the update.
# Verdict: clean
import torch
import torch.nn as nn


def set_seed(seed=2021):
    torch.manual_seed(seed)


class DeepLinearNet(nn.Module):
    """Deep linear network used in W2D1 sections 3.5 / 4 (depth and width as exercise knobs)."""

    def __init__(self, in_dim, hid_dims, out_dim):
        super().__init__()
        dims = [in_dim] + list(hid_dims) + [out_dim]
        self.layers = nn.Sequential(*[nn.Linear(dims[i], dims[i + 1], bias=False) for i in range(len(dims) - 1)])

    def forward(self, x):
        return self.layers(x)


def gradient_update(loss, params, lr=1e-3):
    """Performs a gradient descent update on the parameters"""
    # in case there were gradients from previous iterations
    for par in params:
        if par.grad is not None:
            par.grad.data.zero_()
    # computing the gradients
    loss.backward()
    # updating the parameters
    with torch.no_grad():
        for par in params:
            par.data -= lr * par.grad.data


def train(model, inputs, targets, n_epochs, lr, illusory_i=0):
    """Training function

    Returns:
        losses (list): training losses over epochs
        modes (list): learned singular values of the product of the weights, per epoch
    """
    in_dim = inputs.size(1)
    losses = []
    modes = []
    criterion = nn.MSELoss()
    for i in range(n_epochs):
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        gradient_update(loss, list(model.parameters()), lr=lr)
        losses.append(loss.item())
        with torch.no_grad():
            w_tot = model.layers[0].weight.T
            for layer in model.layers[1:]:
                w_tot = w_tot @ layer.weight.T
            modes.append(torch.linalg.svdvals(w_tot)[:3].tolist())
    return losses, modes


def plot_loss(losses):
    """Text 'plot' of the learning curve (the notebook uses matplotlib here)."""
    values = [float(v) for v in losses]
    return [f"{i:4d} {v:.5f}" for i, v in enumerate(values)]


def make_batches(steps, n_samples=256, in_dim=64, out_dim=32, seed=2021):
    """Hierarchical 'items x features' dataset; `steps` = number of full-batch epochs."""
    g = torch.Generator().manual_seed(seed)
    inputs = torch.eye(in_dim).repeat(n_samples // in_dim, 1)
    inputs = inputs + 0.01 * torch.randn(inputs.shape, generator=g)
    w_true = torch.randn(in_dim, out_dim, generator=g) / in_dim ** 0.5
    targets = inputs @ w_true
    return inputs, targets, steps


def run(steps):
    set_seed()
    inputs, targets, n_epochs = make_batches(steps)
    model = DeepLinearNet(inputs.size(1), [128, 128], targets.size(1))
    losses, modes = train(model, inputs, targets, n_epochs, lr=0.1)
    curve = plot_loss(losses)
    if __name__ == "__main__":
        print("\n".join(curve[-3:]))
    return model, losses, modes


if __name__ == "__main__":
    run(10)
