"""Stateful GRU forecasting of several noisy seasonal series with a datetime-like
future covariate, darts-style: RNNModel(...).fit(series, future_covariates=...,
val_series=...), torch_metrics MetricCollection, LossLogger callback, ReduceLROnPlateau
on val_loss, then an auto-regressive predict (modelled on darts'
examples/04-RNN-examples and docs/userguide/torch_forecasting_models.md)."""
import math

import torch

from darts import TimeSeries
from darts.models.forecasting.rnn_model import RNNModel
from darts.utils.callbacks import LossLogger, BatchLossTracker
from darts.utils.torch_metrics import MetricCollection, MeanAbsolutePercentageError, MeanSquaredError


def make_series(n_series, length, period=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length + 64, dtype=torch.float32)
    series, covs = [], []
    for i in range(n_series):
        phase = 2 * math.pi * torch.rand(1, generator=g)
        level = 5.0 + torch.rand(1, generator=g)
        y = level + torch.sin(2 * math.pi * t / period + phase) + 0.1 * torch.randn(len(t), generator=g)
        cov = torch.stack([torch.sin(2 * math.pi * t / period), torch.cos(2 * math.pi * t / period)], 1)
        series.append(TimeSeries(y[:length]))
        covs.append(TimeSeries(cov))
    return series, covs


MAX_CHUNKS = 32


def main(steps, n_series=32, training_length=48):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    # stateful training: one batch = one chunk of every series; the series hold
    # MAX_CHUNKS chunks and the trainer stops after `steps` batches (max_steps)
    assert steps <= MAX_CHUNKS
    length = MAX_CHUNKS * training_length + 1
    train, covs = make_series(n_series, length, seed=0)
    val, val_covs = make_series(4, 4 * training_length + 1, seed=1)

    loss_logger = LossLogger()
    batch_tracker = BatchLossTracker()
    model = RNNModel(
        input_chunk_length=training_length,
        model="GRU",
        hidden_dim=32,
        n_rnn_layers=1,
        training_length=training_length,
        stateful=True,
        batch_size=16,
        n_epochs=1,
        optimizer_kwargs={"lr": 3e-3},
        lr_scheduler_cls=torch.optim.lr_scheduler.ReduceLROnPlateau,
        lr_scheduler_kwargs={"patience": 2, "monitor": "val_loss"},
        torch_metrics=MetricCollection([MeanAbsolutePercentageError(), MeanSquaredError()]),
        use_reversible_instance_norm=True,
        cal_length=8,
        pl_trainer_kwargs={"callbacks": [loss_logger, batch_tracker], "gradient_clip_val": 1.0,
                           "max_steps": steps},
        random_state=0,
    )
    model.fit(train, future_covariates=covs, val_series=val, val_future_covariates=val_covs,
              epochs=1)
    forecast = model.predict(n=12, series=val, future_covariates=val_covs)
    return {
        "steps": model.trainer.global_step,
        "train_loss": loss_logger.train_loss[-1],
        "val_loss": loss_logger.val_loss[-1],
        "train_mape": float(model.trainer.callback_metrics["train_MeanAbsolutePercentageError"]),
        "n_batches": len(batch_tracker.batch_losses),
        "interval": [round(v, 4) for v in model.model.residual_quantiles().flatten().tolist()],
        "forecast_mean": float(torch.stack([f.values() for f in forecast]).mean()),
    }


if __name__ == "__main__":
    print(main(20))
