# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import torch.nn as nn
import torch.nn.functional as F


class TinyResBackbone(nn.Module):
    """Stride-4 feature extractor standing in for the R50-FPN 'p2' level."""

    def __init__(self, out_channels=32):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1)
        self.res2 = nn.Conv2d(16, out_channels, kernel_size=3, stride=2, padding=1)
        self.lateral = nn.Conv2d(out_channels, out_channels, kernel_size=1)
        self.out_channels = out_channels
        self.size_divisibility = 4

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(self.res2(x))
        return {"p2": self.lateral(x)}
