"""Synthetic, deterministic stand-in for the Mini LibriSpeech data pipeline."""

import math
from collections import namedtuple

import torch

PaddedData = namedtuple("PaddedData", ["data", "lengths"])


class PaddedBatch:
    """Minimal version of speechbrain.dataio.batch.PaddedBatch."""

    def __init__(self, ids, wavs, lens):
        self.id = ids
        self.clean_sig = PaddedData(wavs, lens)

    def to(self, device):
        self.clean_sig = PaddedData(self.clean_sig.data.to(device), self.clean_sig.lengths.to(device))
        return self

    def __len__(self):
        return len(self.id)


def dataio_prep(hparams, n_train_batches, n_valid_batches=2, seed=1234):
    """Creates deterministic lists of batches of harmonic 'speech-like' signals."""
    g = torch.Generator().manual_seed(seed)
    sr, n, bs = hparams["sample_rate"], hparams["n_samples"], hparams["batch_size"]
    t = torch.arange(n, dtype=torch.float32) / sr

    def make(prefix, n_batches):
        batches = []
        for b in range(n_batches):
            f0 = 100 + 150 * torch.rand(bs, 1, generator=g)
            harmonics = torch.arange(1, 5, dtype=torch.float32)[None, :]
            amps = torch.rand(bs, 4, generator=g) / harmonics
            env = 0.5 + 0.5 * torch.sin(2 * math.pi * 3 * t)[None, :]
            wavs = (amps[..., None] * torch.sin(2 * math.pi * (f0 * harmonics)[..., None] * t)).sum(1)
            wavs = 0.3 * wavs * env
            ids = [f"{prefix}{b:04d}_{i}" for i in range(bs)]
            batches.append(PaddedBatch(ids, wavs, torch.ones(bs)))
        return batches

    return {"train": make("tr", n_train_batches), "valid": make("cv", n_valid_batches)}
