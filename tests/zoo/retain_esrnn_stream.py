# Source: https://github.com/kdgutier/esrnn_torch/blob/00aba3bb8a5f5dfe05839b1bbfb4e2f4f023e069/src/utils/ESRNN.py
# Shape: Streaming ES-RNN: the Holt-Winters level/seasonality state is carried from one chunk of the series to the next without detach; the resulting "backward through the graph a second time" error was silenced by also passing retain_graph=True to the last backward of the step (the first one legitimately needs it), so the smoothing recursion of every chunk since the start, with its saved tensors, stays alive and is re-traversed by each new backward.
# Verdict: leak
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class ModelConfig:
    n_series: int = 6
    seasonality: int = 4
    input_size: int = 4
    output_size: int = 2
    chunk_len: int = 12
    state_hsize: int = 16
    learning_rate: float = 1e-3
    per_series_lr_multip: float = 1.0
    gradient_clipping_threshold: float = 20.0
    level_variability_penalty: float = 80.0
    training_percentile: float = 50.0
    noise_std: float = 0.001
    seed: int = 0


def make_batches(n_chunks, mc=None):
    """A long positive seasonal series per id, cut into consecutive chunks (streaming)."""
    mc = mc or ModelConfig()
    g = torch.Generator().manual_seed(mc.seed)
    T = n_chunks * mc.chunk_len + mc.input_size + mc.output_size
    t = torch.arange(T, dtype=torch.float32)
    base = 10 + torch.rand(mc.n_series, 1, generator=g) * 5
    trend = 0.01 * torch.rand(mc.n_series, 1, generator=g) * t
    season = 1 + 0.2 * torch.sin(2 * math.pi * t / mc.seasonality + torch.rand(mc.n_series, 1, generator=g))
    y = (base + trend) * season * (1 + 0.01 * torch.randn(mc.n_series, T, generator=g))
    idxs = torch.arange(mc.n_series)
    chunks = []
    for c in range(n_chunks):
        s = c * mc.chunk_len
        chunks.append((y[:, s:s + mc.chunk_len + mc.input_size + mc.output_size], idxs))
    return chunks


class _ES(nn.Module):
    def __init__(self, mc):
        super().__init__()
        self.mc = mc
        self.n_series = mc.n_series
        self.seasonality = mc.seasonality
        self.lev_sms = nn.Parameter(torch.ones((self.n_series, 1)) * 0.5)
        self.seas_sms = nn.Parameter(torch.ones((self.n_series, 1)) * 0.5)
        self.init_seas = nn.Parameter(torch.ones((self.n_series, self.seasonality)) * 0.5)
        self.logistic = nn.Sigmoid()

    def initial_state(self, y, idxs):
        init_seas = torch.exp(self.init_seas[idxs])
        seasonalities = [init_seas[:, i] for i in range(self.seasonality)]
        level = y[:, 0] / seasonalities[0]
        return level, seasonalities

    def forward(self, y, idxs, state, carry_at):
        """Computes levels and seasons for one chunk, starting from the carried state.
        Returns the state after `carry_at` points, which is where the next chunk starts."""
        lev_sms = self.logistic(self.lev_sms[idxs].squeeze(1))
        seas_sms = self.logistic(self.seas_sms[idxs].squeeze(1))
        level, seasonalities = state
        seasonalities = list(seasonalities)
        levels = []
        for t in range(y.shape[1]):
            newlev = lev_sms * (y[:, t] / seasonalities[t]) + (1 - lev_sms) * level
            newseason = seas_sms * (y[:, t] / newlev) + (1 - seas_sms) * seasonalities[t]
            levels.append(newlev)
            seasonalities.append(newseason)
            level = newlev
            if t == carry_at - 1:
                next_state = (newlev, seasonalities[t + 1:t + 1 + self.seasonality])
        levels = torch.stack(levels, 1)
        seasonalities = torch.stack(seasonalities, 1)
        return levels, seasonalities, next_state


class _RNN(nn.Module):
    def __init__(self, mc):
        super().__init__()
        self.lstm = nn.LSTM(mc.input_size, mc.state_hsize, batch_first=False)
        self.MLPW = nn.Linear(mc.state_hsize, mc.state_hsize)
        self.adapterW = nn.Linear(mc.state_hsize, mc.output_size)

    def forward(self, input_data):
        output, _ = self.lstm(input_data)
        return self.adapterW(torch.tanh(self.MLPW(output)))


class _ESRNN(nn.Module):
    def __init__(self, mc):
        super().__init__()
        self.mc = mc
        self.es = _ES(mc)
        self.rnn = _RNN(mc)

    def gaussian_noise(self, input_data, std=0.2):
        return input_data + torch.randn_like(input_data) * std

    def forward(self, y, idxs, state):
        mc = self.mc
        levels, seasonalities, next_state = self.es(y, idxs, state, carry_at=mc.chunk_len)
        n_windows = y.shape[1] - mc.input_size - mc.output_size + 1
        windows_y_hat, windows_y = [], []
        for i in range(n_windows):
            x_start, x_end = i, mc.input_size + i
            window_y_hat = y[:, x_start:x_end] / seasonalities[:, x_start:x_end]
            window_y_hat = window_y_hat / levels[:, [x_end - 1]]
            windows_y_hat.append(self.gaussian_noise(torch.log(window_y_hat), std=mc.noise_std))
            y_start, y_end = x_end, x_end + mc.output_size
            window_y = y[:, y_start:y_end] / seasonalities[:, y_start:y_end]
            windows_y.append(torch.log(window_y / levels[:, [x_end - 1]]))
        windows_y_hat = self.rnn(torch.stack(windows_y_hat))
        return torch.stack(windows_y), windows_y_hat, levels, next_state


class PinballLoss(nn.Module):
    def __init__(self, tau=0.5):
        super().__init__()
        self.tau = tau

    def forward(self, y, y_hat):
        delta_y = y - y_hat
        return torch.max(self.tau * delta_y, (self.tau - 1) * delta_y).mean()


class LevelVariabilityLoss(nn.Module):
    def __init__(self, level_variability_penalty):
        super().__init__()
        self.level_variability_penalty = level_variability_penalty

    def forward(self, levels):
        level_prev = torch.log(levels[:, :-1])
        level_next = torch.log(levels[:, 1:])
        log_diff_of_levels = level_next - level_prev
        diff_prev = log_diff_of_levels[:, :-1]
        diff_next = log_diff_of_levels[:, 1:]
        return self.level_variability_penalty * ((diff_next - diff_prev) ** 2).mean()


class ESRNNStream:
    def __init__(self, mc):
        self.mc = mc
        torch.manual_seed(mc.seed)
        self.esrnn = _ESRNN(mc)
        self.es_optimizer = torch.optim.Adam(self.esrnn.es.parameters(), lr=mc.learning_rate * mc.per_series_lr_multip)
        self.rnn_optimizer = torch.optim.Adam(self.esrnn.rnn.parameters(), lr=mc.learning_rate)
        self.train_loss = PinballLoss(tau=mc.training_percentile / 100)
        self.level_loss = LevelVariabilityLoss(mc.level_variability_penalty)
        self.state = None
        self.losses = []

    def train_chunk(self, y, idxs):
        if self.state is None:
            self.state = self.esrnn.es.initial_state(y, idxs)
        self.es_optimizer.zero_grad()
        self.rnn_optimizer.zero_grad()
        windows_y, windows_y_hat, levels, self.state = self.esrnn(y, idxs, self.state)
        pinball = self.train_loss(windows_y, windows_y_hat)
        level_penalty = self.level_loss(levels)
        # the level penalty goes through the same exponential-smoothing graph: keep it for the second backward
        pinball.backward(retain_graph=True)
        level_penalty.backward(retain_graph=True)  # TLK202
        loss = pinball + level_penalty
        torch.nn.utils.clip_grad_norm_(self.esrnn.rnn.parameters(), self.mc.gradient_clipping_threshold)
        torch.nn.utils.clip_grad_norm_(self.esrnn.es.parameters(), self.mc.gradient_clipping_threshold)
        self.rnn_optimizer.step()
        self.es_optimizer.step()
        self.losses.append(loss.item())
        return loss.item()

    def fit(self, chunks):
        self.esrnn.train()
        for y, idxs in chunks:
            self.train_chunk(y, idxs)
        return self


def run(steps):
    """`steps` consecutive chunks of the series, one optimisation step each."""
    mc = ModelConfig()
    model = ESRNNStream(mc)
    return model.fit(make_batches(steps, mc))


if __name__ == "__main__":
    run(10)
