"""
This file contains abstract classes for deterministic and probabilistic PyTorch Lightning Modules
"""
import copy
from abc import ABC, abstractmethod
from functools import wraps
from typing import Any, Optional

import torch
import torch.nn as nn

from darts.models.components.layer_norm_variants import RINorm
from darts.utils._lightning import LightningModule
from darts.utils.torch_metrics import MetricCollection


def io_processor(forward):
    """Applies some input / output processing to PLForecastingModule.forward.
    Note that this wrapper must be added to each of PLForecastinModule's subclasses forward methods.

    Here is an example how to add the decorator:

    ```python
        @io_processor
        def forward(self, *args, **kwargs)
            pass
    ```

    Applies
    -------
    Reversible Instance Normalization
        normalizes batch input target features, and inverse transform the forward output back to the original scale
    """

    @wraps(forward)
    def forward_wrapper(self, x_in, *args, **kwargs):
        if not self.use_reversible_instance_norm:
            return forward(self, x_in, *args, **kwargs)

        # x_in is a tuple of (past_target + past_covariates, future_covariates, static_covariates)
        x, *rest = x_in
        x = x.clone()
        x[:, :, : self.n_targets] = self.rin(x[:, :, : self.n_targets])
        out = forward(self, (x, *rest), *args, **kwargs)
        if isinstance(out, tuple):
            prediction, *remaining_out = out
            prediction = self.rin.inverse(prediction)
            return (prediction, *remaining_out)
        return self.rin.inverse(out)

    return forward_wrapper


class PLForecastingModule(LightningModule, ABC):
    @abstractmethod
    def __init__(
        self,
        input_chunk_length: int,
        output_chunk_length: int,
        train_sample_shape: Optional[tuple] = None,
        loss_fn: nn.modules.loss._Loss = nn.MSELoss(),
        torch_metrics: Optional[MetricCollection] = None,
        likelihood=None,
        optimizer_cls=torch.optim.Adam,
        optimizer_kwargs: Optional[dict] = None,
        lr_scheduler_cls=None,
        lr_scheduler_kwargs: Optional[dict] = None,
        use_reversible_instance_norm: bool = False,
        cal_length: int = 8,
    ) -> None:
        """
        PyTorch Lightning-based Forecasting Module.

        This class is meant to be inherited to create a new PyTorch Lightning-based forecasting module.
        """
        super().__init__()

        self.input_chunk_length = input_chunk_length
        self.output_chunk_length = output_chunk_length
        self.train_sample_shape = train_sample_shape
        self.n_targets = train_sample_shape[0][1] if train_sample_shape is not None else 1

        # define the loss function
        self.criterion = loss_fn
        self.train_criterion = copy.deepcopy(loss_fn)
        self.val_criterion = copy.deepcopy(loss_fn)
        # reduction will be set to `None` when calling `TFM.fit()` with sample weights;
        # reset the actual criterion in method `on_fit_end()`
        self.train_criterion_reduction: Optional[str] = None
        self.val_criterion_reduction: Optional[str] = None

        # by default models are deterministic (i.e. not probabilistic)
        self.likelihood = likelihood

        # persist optimiser and LR scheduler parameters
        self.optimizer_cls = optimizer_cls
        self.optimizer_kwargs = dict() if optimizer_kwargs is None else optimizer_kwargs
        self.lr_scheduler_cls = lr_scheduler_cls
        self.lr_scheduler_kwargs = dict() if lr_scheduler_kwargs is None else lr_scheduler_kwargs

        # initialize the torch metrics
        torch_metrics = self.configure_torch_metrics(torch_metrics)
        self.train_metrics = torch_metrics.clone(prefix="train_")
        self.val_metrics = torch_metrics.clone(prefix="val_")

        # reversible instance norm
        self.use_reversible_instance_norm = use_reversible_instance_norm
        if use_reversible_instance_norm:
            self.rin = RINorm(input_dim=self.n_targets)
        else:
            self.rin = None

        # epoch-level training loss, logged in `on_train_epoch_end()`
        self._epoch_loss_sum = 0.0
        self._epoch_n_samples = 0

        # rolling window of in-sample residuals for naive prediction intervals
        self.cal_length = cal_length
        self._residual_buffer: Optional[torch.Tensor] = None
        self._n_residual_batches = 0

        # initialize prediction parameters
        self.pred_n: Optional[int] = None
        self.pred_num_samples: Optional[int] = None
        self.pred_roll_size: Optional[int] = None
        self.pred_batch_size: Optional[int] = None

    @abstractmethod
    def forward(self, x_in, *args, **kwargs) -> Any:
        """Forward pass of the module (implemented by subclasses)."""

    def training_step(self, train_batch, batch_idx: int) -> torch.Tensor:
        """performs the training step"""
        return self._train_val_step(
            batch=train_batch,
            name="train",
            criterion=self.train_criterion,
            metrics=self.train_metrics,
        )

    def validation_step(self, val_batch, batch_idx: int) -> torch.Tensor:
        """performs the validation step"""
        return self._train_val_step(
            batch=val_batch,
            name="val",
            criterion=self.val_criterion,
            metrics=self.val_metrics,
        )

    def _train_val_step(self, batch, name: str, criterion, metrics) -> torch.Tensor:
        """performs a training or validation step"""
        (
            past_target,
            past_covariates,
            historic_future_covariates,
            future_covariates,
            static_covariates,
            sample_weight,
            future_target,
        ) = batch

        output = self._produce_train_output(
            (
                past_target,
                past_covariates,
                historic_future_covariates,
                future_covariates,
                static_covariates,
                future_target if name == "train" else None,
            ),
            stateful=(name == "train"),
        )
        loss = self._compute_loss(output, future_target, criterion, sample_weight)
        self.log(
            f"{name}_loss",
            loss,
            batch_size=past_target.shape[0],
            prog_bar=True,
            sync_dist=True,
        )
        if name == "train":
            self._accumulate_epoch_loss(loss, past_target.shape[0])
            self._collect_residuals(output, future_target)
        self._update_metrics(output, future_target, metrics)
        return loss

    def _accumulate_epoch_loss(self, loss, batch_size):
        self._epoch_loss_sum += loss * batch_size  # expect: TLK101
        self._epoch_n_samples += batch_size

    def _collect_residuals(self, output, target):
        """Keep the in-sample residuals of the last `cal_length` training batches
        (rolling calibration window, as darts' conformal models use `cal_length`),
        used by `residual_quantiles()` to build naive prediction intervals after fit."""
        if self.likelihood is not None or self.cal_length <= 0:
            return
        # non-conformity scores: absolute in-sample errors
        residuals = torch.abs(target - output.squeeze(dim=-1)).reshape(-1, self.n_targets)
        if self._residual_buffer is None or self._residual_buffer.shape[1] != residuals.shape[0]:
            self._residual_buffer = torch.zeros(self.cal_length, *residuals.shape)
            self._n_residual_batches = 0
        slot = self._n_residual_batches % self.cal_length
        self._residual_buffer[slot] = residuals  # expect: TLK102
        self._n_residual_batches += 1

    @torch.no_grad()
    def residual_quantiles(self, q=(0.5, 0.9)):
        if self._residual_buffer is None:
            return None
        n = min(self._n_residual_batches, self.cal_length)
        res = self._residual_buffer[:n].reshape(-1, self.n_targets)
        return torch.quantile(res, torch.tensor(q), dim=0)

    def on_train_epoch_start(self):
        self._epoch_loss_sum = 0.0
        self._epoch_n_samples = 0

    def on_fit_end(self) -> None:
        # revert the loss function reduction change when sample weights were used
        if self.train_criterion_reduction is not None:
            self.train_criterion.reduction = self.train_criterion_reduction
            self.train_criterion_reduction = None
        if self.val_criterion_reduction is not None:
            self.val_criterion.reduction = self.val_criterion_reduction
            self.val_criterion_reduction = None

    def on_train_epoch_end(self):
        self._compute_metrics(self.train_metrics)
        if self._epoch_n_samples:
            self.log("train_loss_epoch", self._epoch_loss_sum / self._epoch_n_samples)

    def on_validation_epoch_end(self):
        self._compute_metrics(self.val_metrics)

    def _compute_loss(self, output, target, criterion, sample_weight):
        # output is of shape (batch_size, n_timesteps, n_components, n_params)
        if self.likelihood:
            loss = self.likelihood.compute_loss(output, target, sample_weight)
        else:
            # If there's no likelihood, nr_params=1, and we need to squeeze out the
            # last dimension of model output, for properly computing the loss.
            loss = criterion(output.squeeze(dim=-1), target)
            if sample_weight is not None:
                loss = (loss * sample_weight).mean()
        return loss

    def _update_metrics(self, output, target, metrics):
        if not len(metrics):
            return

        if self.likelihood:
            pred = self.likelihood.sample(output)
        else:
            # If there's no likelihood, nr_params=1, and we need to squeeze out the
            # last dimension of model output, for properly computing the metric.
            pred = output.squeeze(dim=-1)

        # torch metrics require 2D targets of shape (batch size * ocl, num targets)
        target = target.reshape(-1, self.n_targets)
        pred = pred.reshape(-1, self.n_targets)

        metrics.update(pred, target)

    def _compute_metrics(self, metrics):
        if not len(metrics):
            return

        res = metrics.compute()
        self.log_dict(
            res,
            on_epoch=True,
            on_step=False,
            logger=True,
            prog_bar=True,
            sync_dist=True,
        )
        metrics.reset()

    def configure_optimizers(self):
        """configures optimizers and learning rate schedulers for model optimization."""
        optimizer = self.optimizer_cls(self.parameters(), **self.optimizer_kwargs)
        if self.lr_scheduler_cls is None:
            return {"optimizer": optimizer}
        lr_sched_kws = {k: v for k, v in self.lr_scheduler_kwargs.items()}
        lr_monitor = lr_sched_kws.pop("monitor", None)
        lr_scheduler = self.lr_scheduler_cls(optimizer, **lr_sched_kws)
        return {
            "optimizer": optimizer,
            "lr_scheduler": {
                "scheduler": lr_scheduler,
                "monitor": lr_monitor if lr_monitor is not None else "val_loss",
            },
        }

    def _produce_train_output(self, input_batch, stateful: bool = False):
        return self(self._process_input_batch(input_batch))

    def _process_input_batch(self, input_batch):
        (
            past_target,
            past_covariates,
            historic_future_covariates,
            future_covariates,
            static_covariates,
            future_target,
        ) = input_batch
        dim_comp = 2

        x_past = torch.cat(
            [
                tensor
                for tensor in [
                    past_target,
                    past_covariates,
                    historic_future_covariates,
                ]
                if tensor is not None
            ],
            dim=dim_comp,
        )
        return x_past, future_covariates, static_covariates

    @staticmethod
    def configure_torch_metrics(torch_metrics) -> MetricCollection:
        """process the torch_metrics parameter."""
        if torch_metrics is None:
            torch_metrics = MetricCollection([])
        elif not isinstance(torch_metrics, MetricCollection):
            torch_metrics = MetricCollection([torch_metrics])
        return torch_metrics

    @property
    def epochs_trained(self):
        return self.current_epoch
