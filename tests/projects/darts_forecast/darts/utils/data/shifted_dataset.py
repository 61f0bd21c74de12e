from typing import Optional, Sequence

import torch
from torch.utils.data import Dataset

from darts.timeseries import TimeSeries


class ShiftedTorchTrainingDataset(Dataset):
    """Training dataset for RNNModel: input chunk of length `input_chunk_length`
    and the same window shifted by `shift` as target (teacher forcing: the network
    gets the true past value at each time step).

    With ``stateful=True`` the windows of every series are contiguous and
    non-overlapping and the dataset is laid out chunk-major, so that with
    ``batch_size == len(series)`` and ``shuffle=False`` batch k holds chunk k of
    every series and the RNN hidden state can be carried from batch to batch.

    Items: (past_target, past_covariates, historic_future_covariates,
    future_covariates, static_covariates, sample_weight, future_target)
    """

    def __init__(self, series: Sequence[TimeSeries],
                 future_covariates: Optional[Sequence[TimeSeries]] = None,
                 input_chunk_length: int = 12, shift: int = 1, stateful: bool = False):
        self.series = list(series)
        self.future_covariates = list(future_covariates) if future_covariates is not None else None
        self.L = input_chunk_length
        self.shift = shift
        self.stateful = stateful
        stride = self.L if stateful else 1
        self.starts = []
        min_len = min(len(s) for s in self.series)
        n_windows = (min_len - self.L - self.shift) // stride + 1
        for w in range(n_windows):
            for s_idx in range(len(self.series)):
                self.starts.append((s_idx, w * stride))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, idx):
        s_idx, start = self.starts[idx]
        vals = self.series[s_idx].values(copy=False)
        past_target = vals[start:start + self.L]
        future_target = vals[start + self.shift:start + self.shift + self.L]
        if self.future_covariates is not None:
            cov = self.future_covariates[s_idx].values(copy=False)
            future_cov = cov[start + self.shift:start + self.shift + self.L]
        else:
            future_cov = None
        return past_target, None, None, future_cov, None, None, future_target


def _collate_with_none(batch):
    out = []
    for items in zip(*batch):
        out.append(None if items[0] is None else torch.stack(items))
    return tuple(out)
