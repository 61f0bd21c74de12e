"""
Recurrent Neural Networks
-------------------------
"""
from abc import ABC, abstractmethod
from typing import Optional

import torch
import torch.nn as nn

from darts.models.forecasting.pl_forecasting_module import PLForecastingModule, io_processor
from darts.models.forecasting.torch_forecasting_model import DualCovariatesTorchModel


class CustomRNNModule(PLForecastingModule, ABC):
    def __init__(
        self,
        input_size: int,
        hidden_dim: int,
        num_layers: int,
        target_size: int = 1,
        nr_params: int = 1,
        dropout: float = 0.0,
        stateful: bool = False,
        **kwargs,
    ):
        """This class allows to create custom RNN modules that can later be used with Darts' :class:`RNNModel`.

        With ``stateful=True`` the last hidden state of a training batch is used as
        the initial hidden state of the next one (the training dataset then yields
        contiguous chunks of every series, in order).
        """
        super().__init__(**kwargs)

        # Defining parameters
        self.input_size = input_size
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.target_size = target_size
        self.nr_params = nr_params
        self.dropout = dropout
        self.stateful = stateful
        self._train_hidden: Optional[torch.Tensor] = None

    @io_processor
    @abstractmethod
    def forward(self, x_in, h: Optional[torch.Tensor] = None):
        """RNN Module forward: returns (RNN output, hidden state)."""
        pass

    def _produce_train_output(self, input_batch, stateful: bool = False) -> torch.Tensor:
        x_in = self._process_input_batch(input_batch)
        if not (self.stateful and stateful):
            # only return the forecast, not the hidden state
            return self(x_in)[0]
        out, last_hidden_state = self(x_in, self._train_hidden)
        # truncated BPTT: carry the state over to the next chunk of every series,
        # without the graph of this chunk
        self._train_hidden = last_hidden_state.detach()
        return out

    def on_train_epoch_start(self):
        super().on_train_epoch_start()
        # series start again from their first chunk
        self._train_hidden = None

    def _process_input_batch(self, input_batch):
        (
            past_target,
            _,  # past covariates
            _,  # historic future covariates
            future_covariates,
            static_covariates,
            future_target,
        ) = input_batch
        # For the RNN we concatenate the past_target with the future_covariates
        # (they have the same length because we enforce a Shift dataset for RNNs)
        input_batch = (
            past_target,
            future_covariates,  # future covariates as past covariates for RNN input
            None,
            None,
            static_covariates,
            future_target,
        )
        return super()._process_input_batch(input_batch)

    def _produce_predict_output(self, x, last_hidden_state=None):
        """overwrite parent classes `_produce_predict_output` method"""
        output, hidden = self(x, last_hidden_state)
        return output.squeeze(dim=-1), hidden

    @torch.no_grad()
    def _get_batch_prediction(self, n: int, past_target, future_covariates) -> torch.Tensor:
        """
        This model is recurrent, so we have to write a specific way to obtain the time series forecasts of length n.
        """
        if future_covariates is not None:
            # past target is shifted one step with respect to the covariates
            input_series = torch.cat(
                [past_target, future_covariates[:, : past_target.shape[1], :]], dim=2
            )
        else:
            input_series = past_target

        batch_prediction = []
        out, last_hidden_state = self._produce_predict_output((input_series, None, None))
        batch_prediction.append(out[:, -1:, :])
        prediction_length = 1

        while prediction_length < n:
            # create new input to model from last prediction and current covariates, if available
            new_input = (
                torch.cat(
                    [
                        out[:, -1:, :],
                        future_covariates[:, past_target.shape[1] + prediction_length - 1:
                                          past_target.shape[1] + prediction_length, :],
                    ],
                    dim=2,
                )
                if future_covariates is not None
                else out[:, -1:, :]
            )

            # feed new input to model, including the last hidden state from the previous iteration
            out, last_hidden_state = self._produce_predict_output(
                (new_input, None, None), last_hidden_state
            )

            # append prediction to batch prediction array, increase counter
            batch_prediction.append(out[:, -1:, :])
            prediction_length += 1

        # bring predictions into desired format and drop unnecessary values
        batch_prediction = torch.cat(batch_prediction, dim=1)
        batch_prediction = batch_prediction[:, :n, :]
        return batch_prediction


class _RNNModule(CustomRNNModule):
    def __init__(self, name: str, **kwargs):
        """PyTorch module implementing an RNN to be used in `RNNModel`."""
        # RNNModule doesn't really need input and output_chunk_length for PLModule
        super().__init__(**kwargs)
        self.name = name

        # Defining the RNN module
        self.rnn = getattr(nn, name)(
            self.input_size,
            self.hidden_dim,
            self.num_layers,
            batch_first=True,
            dropout=self.dropout,
        )

        # The RNN module needs a linear layer V that transforms hidden states into outputs, individually
        self.V = nn.Linear(self.hidden_dim, self.target_size * self.nr_params)

    @io_processor
    def forward(self, x_in, h: Optional[torch.Tensor] = None):
        x, _, _ = x_in
        # data is of size (batch_size, input_length, input_size)
        batch_size = x.shape[0]

        # out is of size (batch_size, input_length, hidden_dim)
        out, last_hidden_state = self.rnn(x) if h is None else self.rnn(x, h)

        # Here, we apply the V matrix to every hidden state to produce the outputs
        predictions = self.V(out)

        # predictions is of size (batch_size, input_length, target_size)
        predictions = predictions.view(batch_size, -1, self.target_size, self.nr_params)

        # returns outputs for all inputs, only the last one is needed for prediction time
        return predictions, last_hidden_state


class RNNModel(DualCovariatesTorchModel):
    def __init__(
        self,
        input_chunk_length: int,
        model: str = "RNN",
        hidden_dim: int = 25,
        n_rnn_layers: int = 1,
        dropout: float = 0.0,
        training_length: int = 24,
        stateful: bool = False,
        **kwargs,
    ):
        """Recurrent Neural Network Model (RNNs): vanilla RNN, LSTM or GRU, trained with
        teacher forcing on windows of ``training_length`` and predicting auto-regressively."""
        super().__init__(**kwargs)
        self.input_chunk_length = input_chunk_length
        self.rnn_type_or_module = model
        self.hidden_dim = hidden_dim
        self.n_rnn_layers = n_rnn_layers
        self.dropout = dropout
        self.training_length = training_length
        self.stateful = stateful

    def _create_model(self, train_sample) -> PLForecastingModule:
        # samples are made of (past_target, past_cov, hist_fut_cov, future_cov, static, weight, future_target)
        past_target, _, _, future_covariates, _, _, future_target = train_sample
        input_dim = past_target.shape[1] + (
            future_covariates.shape[1] if future_covariates is not None else 0
        )
        output_dim = future_target.shape[1]
        return _RNNModule(
            name=self.rnn_type_or_module,
            input_size=input_dim,
            target_size=output_dim,
            nr_params=1,
            hidden_dim=self.hidden_dim,
            num_layers=self.n_rnn_layers,
            dropout=self.dropout,
            stateful=self.stateful,
            input_chunk_length=self.training_length,
            output_chunk_length=1,
            train_sample_shape=(tuple(past_target.shape), tuple(future_target.shape)),
            **self.pl_module_params,
        )

    @property
    def min_train_series_length(self) -> int:
        return self.training_length + 1
