"""
Base classes for PyTorch-based forecasting models (darts.models.forecasting.torch_forecasting_model)
"""
from abc import ABC, abstractmethod
from typing import Optional, Sequence, Union

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from darts.timeseries import TimeSeries
from darts.utils._lightning import Trainer
from darts.utils.data.shifted_dataset import ShiftedTorchTrainingDataset, _collate_with_none


class TorchForecastingModel(ABC):
    def __init__(
        self,
        batch_size: int = 32,
        n_epochs: int = 100,
        model_name: Optional[str] = None,
        loss_fn: nn.modules.loss._Loss = nn.MSELoss(),
        torch_metrics=None,
        optimizer_cls=torch.optim.Adam,
        optimizer_kwargs: Optional[dict] = None,
        lr_scheduler_cls=None,
        lr_scheduler_kwargs: Optional[dict] = None,
        use_reversible_instance_norm: bool = False,
        cal_length: int = 8,
        pl_trainer_kwargs: Optional[dict] = None,
        random_state: Optional[int] = None,
    ):
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.model_name = model_name
        self.pl_trainer_kwargs = dict(pl_trainer_kwargs or {})
        self.random_state = random_state
        self.pl_module_params = dict(
            loss_fn=loss_fn,
            torch_metrics=torch_metrics,
            optimizer_cls=optimizer_cls,
            optimizer_kwargs=optimizer_kwargs or {"lr": 1e-3},
            lr_scheduler_cls=lr_scheduler_cls,
            lr_scheduler_kwargs=lr_scheduler_kwargs,
            use_reversible_instance_norm=use_reversible_instance_norm,
            cal_length=cal_length,
        )
        self.model = None
        self.trainer = None
        self._fit_called = False
        self.training_series = None
        self.future_covariate_series = None

    @abstractmethod
    def _create_model(self, train_sample):
        ...

    def _build_train_dataset(self, series, future_covariates, stateful):
        return ShiftedTorchTrainingDataset(
            series, future_covariates, input_chunk_length=self.training_length,
            shift=1, stateful=stateful,
        )

    def _setup_trainer(self, epochs: int = 0) -> Trainer:
        trainer_params = {k: v for k, v in self.pl_trainer_kwargs.items()}
        trainer_params["max_epochs"] = epochs if epochs > 0 else self.n_epochs
        return Trainer(**trainer_params)

    def fit(
        self,
        series: Union[TimeSeries, Sequence[TimeSeries]],
        future_covariates=None,
        val_series=None,
        val_future_covariates=None,
        epochs: int = 0,
        dataloader_kwargs: Optional[dict] = None,
    ):
        if isinstance(series, TimeSeries):
            series = [series]
        if isinstance(future_covariates, TimeSeries):
            future_covariates = [future_covariates]
        if isinstance(val_series, TimeSeries):
            val_series = [val_series]
        if isinstance(val_future_covariates, TimeSeries):
            val_future_covariates = [val_future_covariates]

        self.training_series = series
        self.future_covariate_series = future_covariates

        stateful = getattr(self, "stateful", False)
        train_dataset = self._build_train_dataset(series, future_covariates, stateful)
        val_dataset = (
            self._build_train_dataset(val_series, val_future_covariates, False)
            if val_series is not None else None
        )
        return self.fit_from_dataset(train_dataset, val_dataset, epochs, dataloader_kwargs,
                                     n_series=len(series))

    def fit_from_dataset(self, train_dataset, val_dataset=None, epochs: int = 0,
                         dataloader_kwargs: Optional[dict] = None, n_series: int = 1):
        if self.random_state is not None:
            torch.manual_seed(self.random_state)
        stateful = getattr(self, "stateful", False)
        if not self._fit_called:
            self.model = self._create_model(train_dataset[0])
            self._fit_called = True

        batch_size = n_series if stateful else self.batch_size
        dataloader_kwargs = dict(
            {"batch_size": batch_size, "shuffle": not stateful, "drop_last": False,
             "collate_fn": _collate_with_none},
            **(dataloader_kwargs or {}),
        )
        train_loader = DataLoader(train_dataset, **dataloader_kwargs)
        val_loader = (
            DataLoader(val_dataset, **dict(dataloader_kwargs, shuffle=False, batch_size=self.batch_size))
            if val_dataset is not None else None
        )
        self.trainer = self._setup_trainer(epochs)
        self._train(self.trainer, train_loader, val_loader)
        return self

    def _train(self, trainer: Trainer, train_loader, val_loader) -> None:
        trainer.fit(self.model, train_dataloaders=train_loader, val_dataloaders=val_loader)
        self.model = trainer_model = self.model  # noqa: F841 (darts reloads the best checkpoint here)

    def predict(self, n: int, series=None, future_covariates=None):
        series = series if series is not None else self.training_series
        future_covariates = future_covariates if future_covariates is not None else self.future_covariate_series
        if isinstance(series, TimeSeries):
            series = [series]
        if isinstance(future_covariates, TimeSeries):
            future_covariates = [future_covariates]
        L = self.input_chunk_length
        past = torch.stack([s.values(copy=False)[-L:] for s in series])
        fut = None
        if future_covariates is not None:
            fut = torch.stack([
                c.values(copy=False)[len(s) - L + 1: len(s) + n]
                for s, c in zip(series, future_covariates)
            ])
        self.model.eval()
        preds = self.model._get_batch_prediction(n, past, fut)
        self.model.train()
        return [TimeSeries(p) for p in preds]


class DualCovariatesTorchModel(TorchForecastingModel, ABC):
    """Models that support (historic and) future covariates, like RNNModel."""
