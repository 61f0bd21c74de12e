import numpy as np
import torch


class data_norm():

    def __init__(self, data, method="min-max"):
        axis = tuple(range(len(data.shape) - 1))
        self.method = method
        if method == "min-max":
            self.max = np.max(data, axis=axis)
            self.min = np.min(data, axis=axis)
        elif method == "mean-std":
            self.mean = np.mean(data, axis=axis)
            self.std = np.std(data, axis=axis)

    def norm(self, x):
        if torch.is_tensor(x):
            if self.method == "min-max":
                x = 2 * (x - torch.tensor(self.min, device=x.device)) \
                    / (torch.tensor(self.max, device=x.device) - torch.tensor(self.min, device=x.device)) - 1
            elif self.method == "mean-std":
                x = (x - torch.tensor(self.mean, device=x.device)) / (torch.tensor(self.std, device=x.device))
        else:
            if self.method == "min-max":
                x = 2 * (x - self.min) / (self.max - self.min) - 1
            elif self.method == "mean-std":
                x = (x - self.mean) / (self.std)
        return x

    def back(self, x):
        if torch.is_tensor(x):
            if self.method == "min-max":
                x = (x + 1) / 2 * (torch.tensor(self.max, device=x.device)
                                   - torch.tensor(self.min, device=x.device)) + torch.tensor(self.min, device=x.device)
            elif self.method == "mean-std":
                x = x * (torch.tensor(self.std, device=x.device)) + torch.tensor(self.mean, device=x.device)
        else:
            if self.method == "min-max":
                x = (x + 1) / 2 * (self.max - self.min) + self.min
            elif self.method == "mean-std":
                x = x * (self.std) + self.mean
        return x


def sample(n_samples, dimension, sampler="pseudo"):
    """Generate random samples in [0, 1]^dimension."""
    if sampler == "pseudo":
        return pseudo(n_samples, dimension)
    raise ValueError(f"{sampler} sampler is not available.")


def pseudo(n_samples, dimension):
    """Pseudo random."""
    return np.random.random(size=(n_samples, dimension)).astype(dtype=np.float32)


def burgers_grid(nt=20, nx=40, t_max=5.0, x_max=4.0, nu=0.01):
    """Space-time grid (Nt x Nx x 2) and the closed-form solution used as
    reference / boundary data."""
    pi = np.pi
    node_t = np.linspace(0, t_max, nt, dtype=np.float32)[:, None]
    node_x = np.linspace(0, x_max, nx, dtype=np.float32)[:, None]
    node_t = np.tile(node_t, (1, node_x.shape[0]))         # Nt x Nx
    node_x = np.tile(node_x, (1, node_t.shape[0])).T       # Nt x Nx
    inputs = np.stack((node_t, node_x), axis=-1)

    def get_u(inp):
        return (2 * nu * pi * np.exp(-pi ** 2 * nu * (inp[..., (0,)] - 5)) * np.sin(pi * inp[..., (1,)])) / \
               (2 + np.exp(-np.pi ** 2 * nu * (inp[..., (0,)] - 5)) * np.cos(pi * inp[..., (1,)]))

    field = get_u(inputs).astype(np.float32)              # Nt x Nx x 1
    return inputs, field
