import math

import torch


def make_synthetic_series(num_series, series_len, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(series_len, dtype=torch.float32)
    base = 10 + 5 * torch.rand(num_series, 1, generator=g)
    trend = 0.002 * torch.randn(num_series, 1, generator=g) * t
    season = 1 + 0.2 * torch.sin(2 * math.pi * t / 12 + torch.rand(num_series, 1, generator=g) * 6.28)
    noise = 1 + 0.02 * torch.randn(num_series, series_len, generator=g)
    return (base + trend) * season * noise


class SeriesDataset(object):
    """Walks all series forward in time in consecutive chunks (stateful training).

    Each item: (chunk, future) where chunk is [num_series, chunk_len] and future is the
    next output_size points right after the chunk.
    """

    def __init__(self, series, chunk_len, output_size):
        self.series = series
        self.chunk_len = chunk_len
        self.output_size = output_size
        self.n_chunks = (series.shape[1] - output_size) // chunk_len

    def __len__(self):
        return self.n_chunks

    def __getitem__(self, i):
        s = i * self.chunk_len
        e = s + self.chunk_len
        return self.series[:, s:e], self.series[:, e:e + self.output_size]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]
