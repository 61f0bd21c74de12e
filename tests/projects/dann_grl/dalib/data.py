"""Synthetic source/target domains: same classes, shifted + scaled inputs for the target."""
import torch


class DomainPairLoader:
    def __init__(self, n_iters, batch_size=8, in_dim=20, n_classes=4, seed=0):
        self.n_iters, self.batch_size = n_iters, batch_size
        self.in_dim, self.n_classes, self.seed = in_dim, n_classes, seed
        g = torch.Generator().manual_seed(123)
        self.centers = torch.randn(n_classes, in_dim, generator=g) * 2

    def __len__(self):
        return self.n_iters

    def _draw(self, g, shift):
        y = torch.randint(self.n_classes, (self.batch_size,), generator=g)
        x = self.centers[y] + torch.randn(self.batch_size, self.in_dim, generator=g)
        return x * (1 + shift) + shift, y

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        for _ in range(self.n_iters):
            x_s, y_s = self._draw(g, 0.0)
            x_t, _ = self._draw(g, 0.5)
            yield x_s, y_s, x_t


def make_domain_loader(n_iters, seed=0):
    return DomainPairLoader(n_iters, seed=seed)


def make_val_loader(n_iters=3):
    loader = DomainPairLoader(n_iters, seed=99)
    for x_s, y_s, x_t in loader:
        # target images with (hidden) labels: same class layout as the source
        yield x_t, y_s
