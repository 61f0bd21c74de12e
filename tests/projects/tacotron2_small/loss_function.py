import torch
from torch import nn
from torch.nn import functional as F


class Tacotron2Loss(nn.Module):
    def __init__(self, gate_ema_decay=0.98):
        super(Tacotron2Loss, self).__init__()
        self.gate_ema_decay = gate_ema_decay
        # running mean of the stop-token probability; a value drifting to 0
        # or 1 is the usual sign of a gate that stopped learning.
        self.gate_activation_ema = torch.zeros(())

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

        self.gate_activation_ema = self.gate_ema_decay * self.gate_activation_ema + (1.0 - self.gate_ema_decay) * torch.sigmoid(gate_out).mean()  # known-miss: TLK103
        return mel_loss + gate_loss


def mel_l1_error(model_output, targets):
    """L1 distance between the post-net mel and the target, for monitoring."""
    mel_out_postnet = model_output[1]
    return F.l1_loss(mel_out_postnet, targets[0])


def gate_accuracy(model_output, targets):
    """Fraction of frames whose stop-token decision is right."""
    gate_out = model_output[2]
    with torch.no_grad():
        predicted = (torch.sigmoid(gate_out) > 0.5).float()
        return (predicted == targets[1]).float().mean().item()
