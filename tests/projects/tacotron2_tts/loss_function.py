from torch import nn
from torch.nn import functional as F


class Tacotron2Loss(nn.Module):
    """MSE on the mel outputs (before and after the postnet) plus BCE on the
    stop gate.  The criterion also keeps the mean L1 distance of the postnet
    output over the run, which is reported at the end of training."""

    def __init__(self):
        super(Tacotron2Loss, self).__init__()
        self.postnet_l1_sum = 0.0
        self.n_batches = 0

    def forward(self, model_output, targets):
        mel_target, gate_target = targets[0], targets[1]
        mel_target.requires_grad = False
        gate_target.requires_grad = False
        gate_target = gate_target.view(-1, 1)

        mel_out, mel_out_postnet, gate_out, _ = model_output
        gate_out = gate_out.view(-1, 1)
        mel_loss = nn.MSELoss()(mel_out, mel_target) + \
            nn.MSELoss()(mel_out_postnet, mel_target)
        gate_loss = nn.BCEWithLogitsLoss()(gate_out, gate_target)
        if self.training:
            self.postnet_l1_sum += F.l1_loss(mel_out_postnet, mel_target)  # known-miss: TLK101
            self.n_batches += 1
        return mel_loss + gate_loss

    def postnet_l1(self):
        return float(self.postnet_l1_sum) / max(self.n_batches, 1)
