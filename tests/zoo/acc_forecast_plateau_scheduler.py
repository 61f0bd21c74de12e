# Source: https://github.com/unit8co/darts/pull/711
# Shape: LRSchedulerHandler.on_batch_end() sums the attached training loss into _epoch_loss so ReduceLROnPlateau can be stepped on the epoch's mean training loss; the running sum references every batch's RNN graph until the epoch ends.
# Verdict: leak
import math

import torch
import torch.nn as nn

INPUT_CHUNK = 24
OUTPUT_CHUNK = 6
BATCH = 32

_t = torch.arange(2000, dtype=torch.float32)
_GEN = torch.Generator().manual_seed(11)
SERIES = (torch.sin(2 * math.pi * _t / 48) + 0.5 * torch.sin(2 * math.pi * _t / 336)
          + 0.1 * torch.randn(2000, generator=_GEN)).unsqueeze(-1)


class _BlockRNNModule(nn.Module):
    def __init__(self, input_size, hidden_dim, num_layers, output_chunk_length, target_size=1,
                 num_layers_out_fc=(32,), dropout=0.0):
        super().__init__()
        # unrolled cell so that past covariates can be masked step by step
        self.rnn = nn.GRUCell(input_size, hidden_dim)
        self.hidden_dim = hidden_dim
        feats = [hidden_dim] + list(num_layers_out_fc) + [output_chunk_length * target_size]
        layers = []
        for i in range(len(feats) - 1):
            layers.append(nn.Linear(feats[i], feats[i + 1]))
            if i < len(feats) - 2:
                layers.append(nn.ReLU())
        self.fc = nn.Sequential(*layers)
        self.out_len = output_chunk_length
        self.target_size = target_size

    def forward(self, x):
        h = x.new_zeros(x.shape[0], self.hidden_dim)
        for t in range(x.shape[1]):
            h = self.rnn(x[:, t], h)
        predictions = self.fc(h)
        return predictions.view(x.shape[0], self.out_len, self.target_size)


class LRSchedulerHandler:
    """Steps the LR scheduler once per epoch; ReduceLROnPlateau gets the mean training loss."""

    def __init__(self, lr_scheduler):
        self.lr_scheduler = lr_scheduler
        self._epoch_loss = 0.0
        self._n_batches = 0

    def on_batch_end(self, loss):
        self._epoch_loss += loss  # TLK101
        self._n_batches += 1

    def on_epoch_end(self):
        if isinstance(self.lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            self.lr_scheduler.step(self._epoch_loss / max(self._n_batches, 1))
        else:
            self.lr_scheduler.step()
        self._epoch_loss, self._n_batches = 0.0, 0


class TorchForecastingModel:
    def __init__(self, model, optimizer_kwargs=None, lr_scheduler_kwargs=None,
                 steps_per_epoch=100):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), **(optimizer_kwargs or {"lr": 1e-3}))
        self.lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            self.optimizer, **(lr_scheduler_kwargs or {}))
        self.scheduler_handler = LRSchedulerHandler(self.lr_scheduler)
        self.criterion = nn.MSELoss()
        self.steps_per_epoch = steps_per_epoch
        self.train_losses = []

    def _batch(self, starts):
        past = torch.stack([SERIES[s:s + INPUT_CHUNK] for s in starts])
        future = torch.stack([SERIES[s + INPUT_CHUNK:s + INPUT_CHUNK + OUTPUT_CHUNK] for s in starts])
        return past, future

    def _train_step(self, starts):
        train_past_target, train_future_target = self._batch(starts)
        output = self.model(train_past_target)
        loss = self.criterion(output, train_future_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def fit(self, batches):
        # step-based training: an "epoch" is steps_per_epoch batches of the sampled series
        self.model.train()
        total_loss = 0.0
        for step, starts in enumerate(batches):
            loss = self._train_step(starts)
            total_loss += loss.item()
            self.scheduler_handler.on_batch_end(loss)
            if (step + 1) % self.steps_per_epoch == 0:
                self.train_losses.append(total_loss / self.steps_per_epoch)
                total_loss = 0.0
                self.scheduler_handler.on_epoch_end()
        return self


def make_batches(n):
    torch.manual_seed(0)
    limit = 2000 - INPUT_CHUNK - OUTPUT_CHUNK
    return [[(i * 53 + j * 29) % limit for j in range(BATCH)] for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    module = _BlockRNNModule(input_size=1, hidden_dim=32, num_layers=1, output_chunk_length=OUTPUT_CHUNK)
    model = TorchForecastingModel(module, lr_scheduler_kwargs={"patience": 3, "factor": 0.5})
    model.fit(batches)
    return model
