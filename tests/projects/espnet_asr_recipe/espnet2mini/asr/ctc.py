import torch
import torch.nn.functional as F


class CTC(torch.nn.Module):
    """CTC module.

    Args:
        odim: dimension of outputs
        encoder_output_size: number of encoder projection units
        dropout_rate: dropout rate (0.0 ~ 1.0)
        reduce: reduce the CTC loss into a scalar
    """

    def __init__(
        self,
        odim: int,
        encoder_output_size: int,
        dropout_rate: float = 0.0,
        reduce: bool = True,
        blank_id: int = 0,
    ):
        super().__init__()
        eprojs = encoder_output_size
        self.dropout_rate = dropout_rate
        self.ctc_lo = torch.nn.Linear(eprojs, odim)
        self.blank_id = blank_id
        self.ctc_loss = torch.nn.CTCLoss(blank=blank_id, reduction="none", zero_infinity=True)
        self.reduce = reduce
        # blank-collapse monitor: mean posterior of <blank> over the epoch's training frames
        self.blank_mass = 0.0
        self.num_monitored = 0

    def reset_monitor(self):
        self.blank_mass = 0.0
        self.num_monitored = 0

    def blank_ratio(self) -> float:
        return float(self.blank_mass) / max(self.num_monitored, 1)

    def loss_fn(self, th_pred, th_target, th_ilen, th_olen) -> torch.Tensor:
        th_pred = th_pred.log_softmax(2)
        loss = self.ctc_loss(th_pred, th_target, th_ilen, th_olen)
        size = th_pred.size(1)
        if self.reduce:
            # Batch-size average
            loss = loss.sum() / size
        else:
            loss = loss / size
        return loss

    def forward(self, hs_pad, hlens, ys_pad, ys_lens):
        """Calculate CTC loss.

        Args:
            hs_pad: batch of padded hidden state sequences (B, Tmax, D)
            hlens: batch of lengths of hidden state sequences (B)
            ys_pad: batch of padded character id sequence tensor (B, Lmax)
            ys_lens: batch of lengths of character sequence (B)
        """
        # hs_pad: (B, L, NProj) -> ys_hat: (B, L, Nvocab)
        ys_hat = self.ctc_lo(F.dropout(hs_pad, p=self.dropout_rate))
        # ys_hat: (B, L, D) -> (L, B, D)
        ys_hat = ys_hat.transpose(0, 1)
        if self.training:
            posteriors = ys_hat.softmax(dim=-1)
            self.blank_mass += posteriors[:, :, self.blank_id].mean()  # known-miss: TLK101
            self.num_monitored += 1

        ys_true = torch.cat([ys_pad[i, :l] for i, l in enumerate(ys_lens)])
        loss = self.loss_fn(ys_hat, ys_true, hlens, ys_lens).to(
            device=hs_pad.device, dtype=hs_pad.dtype
        )
        return loss

    def log_softmax(self, hs_pad):
        return F.log_softmax(self.ctc_lo(hs_pad), dim=2)

    def argmax(self, hs_pad):
        return torch.argmax(self.ctc_lo(hs_pad), dim=2)
