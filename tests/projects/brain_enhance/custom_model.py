"""
This file contains a very simple PyTorch module to use for enhancement.

The mask estimator is an RNN with projection layers between RNN layers. It also
tracks a running estimate of the noise floor (per frequency bin), which is used
for spectral gating when the model is run in eval mode.
"""

import torch


class CustomModel(torch.nn.Module):
    """Basic RNN model with projection layers between RNN layers.

    Arguments
    ---------
    input_size : int
        Size of the expected input in the 3rd dimension.
    rnn_size : int
        Number of neurons to use in rnn (for each direction -> and <-).
    projection : int
        Number of neurons in projection layer.
    layers : int
        Number of RNN layers to use.
    floor_momentum : float
        Momentum of the running noise-floor estimate.
    """

    def __init__(self, input_size, rnn_size=32, projection=32, layers=2, floor_momentum=0.95):
        super().__init__()
        self.layers = torch.nn.ModuleList()
        for i in range(layers):
            self.layers.append(
                torch.nn.LSTM(
                    input_size=input_size if i == 0 else projection,
                    hidden_size=rnn_size,
                    bidirectional=True,
                )
            )
            linear_size = input_size if i == layers - 1 else projection
            self.layers.append(torch.nn.Linear(in_features=rnn_size * 2, out_features=linear_size))
        self.layers.append(torch.nn.Sigmoid())
        self.floor_momentum = floor_momentum
        self.register_buffer("noise_floor", torch.zeros(input_size))

    def forward(self, x, lengths=None):
        """Shift to time-first, pass layers, then back to batch-first."""
        feats = x
        x = x.transpose(0, 1)
        for layer in self.layers:
            x = layer(x)
            if isinstance(x, tuple):
                x = x[0]
        mask = x.transpose(0, 1)

        if self.training:
            # What the mask removes is (an estimate of) the noise: track its level.
            residual = feats * (1.0 - mask)
            m = self.floor_momentum
            self.noise_floor = m * self.noise_floor + (1 - m) * residual.mean(dim=(0, 1))  # expect: TLK103
        else:
            # Spectral gate: bins below the tracked floor are attenuated.
            gate = (feats > 1.5 * self.noise_floor).float()
            mask = mask * (0.3 + 0.7 * gate)
        return mask
