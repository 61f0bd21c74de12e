# Source: https://github.com/nasa/prog_models/issues/336
# Shape: next_state() detaches the propagated LSTM (h, c) before storing it on self.states, so the online state carries values but no graph from earlier steps.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Params:
    window = 12
    n_inputs = 2
    n_outputs = 1
    hidden = 32
    layers = 1
    lr = 3e-3
    batch_size = 4
    online_steps_per_update = 4
    teacher_forcing_ratio = 1.0


class DegradationSeries:
    """Synthetic battery-like degradation: load current in, voltage-like output drifting down."""

    def __init__(self, length=4096, seed=5):
        g = torch.Generator().manual_seed(seed)
        t = torch.arange(length).float()
        self.u = torch.stack([torch.sin(t / 17.0), 0.5 + 0.2 * torch.rand(length, generator=g)], dim=1)
        self.z = (4.2 - 0.0003 * t - 0.3 * self.u[:, 1] + 0.02 * torch.randn(length, generator=g)).unsqueeze(1)

    def window_batch(self, seed, window, batch_size):
        g = torch.Generator().manual_seed(seed)
        start = torch.randint(0, self.u.size(0) - window - 1, (batch_size,), generator=g)
        idx = start[:, None] + torch.arange(window)[None]
        return self.u[idx], self.z[idx], self.z[idx + 1]


class LSTMStateTransitionModel(nn.Module):
    def __init__(self, params):
        super().__init__()
        self.params = params
        self.lstm = nn.LSTM(params.n_inputs + params.n_outputs, params.hidden, params.layers, batch_first=True)
        self.dense = nn.Linear(params.hidden, params.n_outputs)
        self.states = None

    def forward(self, u, z_prev, state=None):
        out, state = self.lstm(torch.cat([u, z_prev], dim=-1), state)
        return self.dense(out), state

    def initialize(self, z0):
        self.states = None
        self.last_output = z0

    def next_state(self, u):
        """Advance the online model one step, carrying the LSTM state forward."""
        x = torch.cat([u, self.last_output], dim=-1).view(1, 1, -1)
        out, states = self.lstm(x, self.states)
        self.states = tuple(s.detach() for s in states)
        self.last_output = self.dense(out).view(1, -1).detach()
        return self.last_output


def train_step(model, optimizer, u, z_prev, z_next, params):
    model.train()
    if torch.rand(()) < params.teacher_forcing_ratio:
        pred, _ = model(u, z_prev)
    else:
        pred_steps, state, z_in = [], None, z_prev[:, :1]
        for k in range(u.size(1)):
            p, state = model(u[:, k:k + 1], z_in, state)
            pred_steps.append(p)
            z_in = p.detach()
        pred = torch.cat(pred_steps, dim=1)
    loss = F.mse_loss(pred, z_next)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    params = Params()
    series = DegradationSeries()
    model = LSTMStateTransitionModel(params)
    optimizer = torch.optim.Adam(model.parameters(), lr=params.lr)
    model.initialize(series.z[:1])
    cursor = 0
    train_losses, online_errors = [], []
    for step, seed in enumerate(batches):
        u, z_prev, z_next = series.window_batch(seed, params.window, params.batch_size)
        train_losses.append(train_step(model, optimizer, u, z_prev, z_next, params))
        err = 0.0
        for _ in range(params.online_steps_per_update):
            z_hat = model.next_state(series.u[cursor:cursor + 1])
            cursor += 1
            err += (z_hat - series.z[cursor:cursor + 1]).abs().item()
        online_errors.append(err / params.online_steps_per_update)
    return model, train_losses, online_errors
