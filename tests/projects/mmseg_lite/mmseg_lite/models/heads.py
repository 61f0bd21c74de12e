"""Decode head and the class-prototype memory."""
import torch
import torch.nn.functional as F
from torch import nn


class SegHead(nn.Module):
    """Pixel classifier on top of the stem embeddings."""

    def __init__(self, in_channels: int, channels: int, num_classes: int):
        super().__init__()
        self.conv_seg = nn.Sequential(
            nn.Linear(in_channels, channels), nn.ReLU(inplace=False),
            nn.Linear(channels, num_classes))

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        return self.conv_seg(feats)


class PrototypeMemory(nn.Module):
    """One prototype per class, updated as a moving average of the class means of
    the pixel embeddings seen in training batches."""

    def __init__(self, num_classes: int, channels: int, momentum: float = 0.9):
        super().__init__()
        self.num_classes = num_classes
        self.momentum = momentum
        self.register_buffer('prototypes', torch.zeros(num_classes, channels))
        self.register_buffer('initialized', torch.zeros((), dtype=torch.bool))

    def batch_prototypes(self, feats: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        onehot = F.one_hot(labels, self.num_classes).to(feats.dtype)    # [N, K]
        counts = onehot.sum(0).clamp(min=1.0).unsqueeze(1)             # [K, 1]
        return onehot.t() @ feats / counts                              # [K, C]

    def update(self, batch_protos: torch.Tensor) -> torch.Tensor:
        m = self.momentum if bool(self.initialized) else 0.0
        self.initialized.fill_(True)
        prototypes = m * self.prototypes + (1 - m) * batch_protos
        self.prototypes = prototypes
        return prototypes
