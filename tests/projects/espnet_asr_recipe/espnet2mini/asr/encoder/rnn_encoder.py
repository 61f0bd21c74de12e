from typing import Optional, Tuple

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from espnet2mini.asr.encoder.abs_encoder import AbsEncoder
from espnet2mini.nets.nets_utils import make_pad_mask


class RNNEncoder(AbsEncoder):
    """Bidirectional RNN encoder with frame subsampling between the two layers (RNNP style)."""

    def __init__(
        self,
        input_size: int,
        rnn_type: str = "lstm",
        num_layers: int = 2,
        hidden_size: int = 320,
        output_size: int = 320,
        subsample: int = 2,
        dropout: float = 0.0,
    ):
        super().__init__()
        self._output_size = output_size
        self.subsample = subsample
        rnn_class = torch.nn.LSTM if rnn_type == "lstm" else torch.nn.GRU
        self.rnns = torch.nn.ModuleList()
        self.projs = torch.nn.ModuleList()
        in_dim = input_size
        for _ in range(num_layers):
            self.rnns.append(rnn_class(in_dim, hidden_size, batch_first=True, bidirectional=True))
            self.projs.append(torch.nn.Linear(2 * hidden_size, output_size))
            in_dim = output_size
        self.dropout = torch.nn.Dropout(dropout)

    def output_size(self) -> int:
        return self._output_size

    def forward(
        self,
        xs_pad: torch.Tensor,
        ilens: torch.Tensor,
        prev_states: torch.Tensor = None,
    ) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
        for i, (rnn, proj) in enumerate(zip(self.rnns, self.projs)):
            packed = pack_padded_sequence(xs_pad, ilens.cpu(), batch_first=True, enforce_sorted=False)
            ys, _ = rnn(packed)
            ys_pad, ilens = pad_packed_sequence(ys, batch_first=True)
            if i == 0 and self.subsample > 1:
                ys_pad = ys_pad[:, :: self.subsample]
                ilens = (ilens + self.subsample - 1) // self.subsample
            xs_pad = torch.tanh(proj(self.dropout(ys_pad)))
        xs_pad = xs_pad.masked_fill(make_pad_mask(ilens, xs_pad, 1), 0.0)
        return xs_pad, ilens, None
