# Modelled on models/wideresnet.py of kekmodel/FixMatch-pytorch (build_wideresnet returns the
# classifier). Reduced to a two-layer MLP over 3x8x8 images; the BatchNorm keeps the running
# statistics that ModelEMA copies.
import torch.nn as nn


class WideResNet(nn.Module):
    def __init__(self, num_classes=10, in_dim=3 * 8 * 8, width=64):
        super().__init__()
        self.features = nn.Sequential(nn.Flatten(), nn.Linear(in_dim, width), nn.BatchNorm1d(width), nn.LeakyReLU(0.1))
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


def build_wideresnet(depth=28, widen_factor=2, dropout=0.0, num_classes=10):
    return WideResNet(num_classes=num_classes, width=32 * widen_factor)
