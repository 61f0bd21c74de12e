"""Synthetic two-speaker mixtures (stands in for the wsj0-2mix json loaders)."""
import torch


class MixtureLoader:
    """Yields (mixture [B, T], lengths [B], sources [B, C, T]) batches."""

    def __init__(self, n_batches, batch_size=2, n_src=2, n_samples=256, seed=0):
        self.n_batches = n_batches
        self.batch_size = batch_size
        self.n_src = n_src
        self.n_samples = n_samples
        self.seed = seed

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        t = torch.linspace(0, 1, self.n_samples)
        for _ in range(self.n_batches):
            freq = torch.rand(self.batch_size, self.n_src, 1, generator=g) * 40 + 5
            src = torch.sin(2 * 3.14159 * freq * t) + 0.05 * torch.randn(
                self.batch_size, self.n_src, self.n_samples, generator=g)
            mix = src.sum(dim=1)
            lengths = torch.full((self.batch_size,), self.n_samples, dtype=torch.long)
            yield mix, lengths, src


def make_loaders(n_train, n_valid=2):
    return MixtureLoader(n_train, seed=1), MixtureLoader(n_valid, seed=2)
