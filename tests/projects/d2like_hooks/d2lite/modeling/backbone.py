import torch.nn as nn
import torch.nn.functional as F


class SimpleBackbone(nn.Module):
    def __init__(self, in_channels=3, channels=16):
        super().__init__()
        self.stem = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.res2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.res3 = nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1)
        self.out_channels = 2 * channels

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(self.res2(x)) + x
        return F.relu(self.res3(x))


def build_backbone(cfg):
    return SimpleBackbone(3, cfg.MODEL.BACKBONE_CHANNELS)
