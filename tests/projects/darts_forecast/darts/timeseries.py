import torch


class TimeSeries:
    """Minimal stand-in for darts.TimeSeries: a (time, components) float tensor."""

    def __init__(self, values: torch.Tensor):
        if values.dim() == 1:
            values = values.unsqueeze(-1)
        self._values = values.float()

    @classmethod
    def from_values(cls, values):
        return cls(torch.as_tensor(values))

    def values(self, copy=True):
        return self._values.clone() if copy else self._values

    def __len__(self):
        return self._values.shape[0]

    @property
    def n_components(self):
        return self._values.shape[1]

    @property
    def width(self):
        return self.n_components

    def split_before(self, split_point: int):
        return TimeSeries(self._values[:split_point]), TimeSeries(self._values[split_point:])

    def __getitem__(self, key):
        return TimeSeries(self._values[key])

    def append_values(self, values):
        return TimeSeries(torch.cat([self._values, torch.as_tensor(values).float()], 0))
