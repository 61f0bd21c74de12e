import torch
import torch.nn as nn

from helpers import PAD_ID


class XentLoss(nn.Module):
    """Token-level cross entropy (summed), with optional label smoothing."""

    def __init__(self, pad_index=PAD_ID, smoothing=0.1):
        super().__init__()
        self.pad_index = pad_index
        self.smoothing = smoothing
        self.criterion = nn.KLDivLoss(reduction="sum")

    def _smooth_targets(self, targets, vocab_size):
        dist = torch.full((targets.size(0), vocab_size), self.smoothing / (vocab_size - 2))
        dist.scatter_(1, targets.unsqueeze(1), 1.0 - self.smoothing)
        dist[:, self.pad_index] = 0
        dist[targets == self.pad_index] = 0
        return dist

    def forward(self, log_probs, targets):
        log_probs = log_probs.reshape(-1, log_probs.size(-1))
        targets = targets.reshape(-1)
        return self.criterion(log_probs, self._smooth_targets(targets, log_probs.size(-1)))
