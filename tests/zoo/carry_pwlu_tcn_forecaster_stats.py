# Source: https://github.com/MrGoriay/pwlu-pytorch/issues/1
# Shape: during the PWLU statistics-collection phase (mode 0) PWLA2d updates running_mean/running_var from x.mean()/x.std() of the attached activation, so each buffer becomes a chain that holds every batch's conv activations of the forecaster for as long as the module lives.
# Verdict: leak
import random

import torch
import torch.nn as nn

N_SERIES = 48
LOOKBACK = 48
HORIZON = 8
N_VARS = 4
STATS_EPOCHS = 5  # amount of epochs to collect statistics


class PWLA2d(torch.nn.Module):
    """Piecewise Linear activation for (B, C, L) data, https://arxiv.org/pdf/2104.03693.pdf"""

    def __init__(self, N=16, momentum=0.9):
        super().__init__()
        self.N = N
        self.momentum = momentum
        self.Br = torch.nn.Parameter(torch.tensor(10.))
        self.Bl = torch.nn.Parameter(torch.tensor(-10.))
        self.register_buffer("running_mean", torch.zeros(1))
        self.register_buffer("running_var", torch.ones(1))
        self.Kl = torch.nn.Parameter(torch.tensor(0.))
        self.Kr = torch.nn.Parameter(torch.tensor(1.))
        self.Yidx = torch.nn.Parameter(nn.functional.relu(torch.linspace(self.Bl.item(), self.Br.item(), self.N + 1)))

    def forward(self, x, mode=0):
        if mode == 0:
            mean = x.mean([0, 1, -1])
            var = x.std([0, 1, -1])
            self.running_mean = (self.momentum * self.running_mean) + (1.0 - self.momentum) * mean  # TLK103
            self.running_var = (self.momentum * self.running_var) + (1.0 - self.momentum) * (x.shape[0] / (x.shape[0] - 1) * var)  # TLK103
            return nn.functional.relu(x)
        d = (self.Br - self.Bl) / self.N
        DATAind = torch.clamp(torch.floor((x - self.Bl.item()) / d), 0, self.N - 1)
        Bdata = self.Bl + DATAind * d
        maskBl = x < self.Bl
        maskBr = x >= self.Br
        maskOther = ~(maskBl + maskBr)
        Ydata = self.Yidx[DATAind.type(torch.int64)]
        Kdata = (self.Yidx[DATAind.type(torch.int64) + 1] - Ydata) / d
        return (maskBl * ((x - self.Bl) * self.Kl + self.Yidx[0]) + maskBr * ((x - self.Br) * self.Kr + self.Yidx[-1])
                + maskOther * ((x - Bdata) * Kdata + Ydata))


class TemporalBlock(nn.Module):
    def __init__(self, n_in, n_out, kernel_size, dilation):
        super().__init__()
        pad = (kernel_size - 1) * dilation
        self.conv = nn.Conv1d(n_in, n_out, kernel_size, padding=pad, dilation=dilation)
        self.chomp = pad
        self.act = PWLA2d()
        self.downsample = nn.Conv1d(n_in, n_out, 1) if n_in != n_out else None

    def forward(self, x, mode):
        out = self.conv(x)[:, :, :-self.chomp]
        out = self.act(out, mode)
        res = x if self.downsample is None else self.downsample(x)
        return out + res


class TCNForecaster(nn.Module):
    def __init__(self, n_vars=N_VARS, channels=(32, 32), kernel_size=3, horizon=HORIZON):
        super().__init__()
        layers, n_in = [], n_vars
        for i, ch in enumerate(channels):
            layers.append(TemporalBlock(n_in, ch, kernel_size, dilation=2 ** i))
            n_in = ch
        self.blocks = nn.ModuleList(layers)
        self.head = nn.Linear(n_in, horizon)

    def forward(self, x, mode=0):
        for block in self.blocks:
            x = block(x, mode)
        return self.head(x[:, :, -1])


class WindowDataset:
    def __init__(self):
        g = torch.Generator().manual_seed(17)
        t = torch.arange(LOOKBACK + HORIZON).float()
        phase = torch.rand(N_SERIES, N_VARS, 1, generator=g) * 6.28
        self.series = torch.sin(t / 6.0 + phase) + 0.1 * torch.randn(N_SERIES, N_VARS, LOOKBACK + HORIZON, generator=g)

    def collate(self, idx):
        w = self.series[idx]
        return w[:, :, :LOOKBACK], w[:, 0, LOOKBACK:]


def train_epoch(model, optimizer, criterion, loader, mode):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        pred = model(x, mode)
        loss = criterion(pred, y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total


def make_batches(n):
    rng = random.Random(0)
    return [rng.sample(range(N_SERIES), 8) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    data = WindowDataset()
    model = TCNForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    # Phase I: collect activation statistics (one pass over the index batches = our "epoch")
    loss = train_epoch(model, optimizer, criterion, (data.collate(i) for i in batches), mode=0)
    stats = [(float(b.act.running_mean), float(b.act.running_var)) for b in model.blocks]
    return model, loss, stats
